"use client";

import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { FormError } from "./auth-form";
import { authClient, reloadTo } from "./client";
import { useAuthAction } from "./use-auth-action";

/** Accept (join the team and work in it) or decline an invitation addressed to the signed-in user. */
export function AcceptInvitation({ invitationId }: { invitationId: string }) {
  const { pending, error, run } = useAuthAction<"accept" | "decline">();
  function answer(choice: "accept" | "decline") {
    void run(
      choice,
      () => (choice === "accept" ? authClient.organization.acceptInvitation({ invitationId }) : authClient.organization.rejectInvitation({ invitationId })),
      () => reloadTo("/"),
    );
  }
  return (
    <div className="space-y-3">
      <FormError message={error} />
      <div className="flex gap-2">
        <Button variant="primary" className="flex-1" data-testid="accept-invitation" disabled={pending !== undefined} onClick={() => answer("accept")}>
          {pending === "accept" ? <Spinner /> : null}
          Accept
        </Button>
        <Button className="flex-1" disabled={pending !== undefined} onClick={() => answer("decline")}>
          {pending === "decline" ? <Spinner /> : null}
          Decline
        </Button>
      </div>
    </div>
  );
}
