"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { authClient, authErrorMessage, reloadTo } from "./client";

/** Accept (join the team and work in it) or decline an invitation addressed to the signed-in user. */
export function AcceptInvitation({ invitationId }: { invitationId: string }) {
  const [pending, setPending] = useState<"accept" | "decline">();
  const [error, setError] = useState<string>();
  async function answer(choice: "accept" | "decline") {
    setPending(choice);
    setError(undefined);
    const result =
      choice === "accept"
        ? await authClient.organization.acceptInvitation({ invitationId })
        : await authClient.organization.rejectInvitation({ invitationId });
    if (result.error) {
      setPending(undefined);
      setError(authErrorMessage(result.error));
      return;
    }
    reloadTo("/");
  }
  return (
    <div className="space-y-3">
      {error ? (
        <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
      <div className="flex gap-2">
        <Button variant="primary" className="flex-1" data-testid="accept-invitation" disabled={pending !== undefined} onClick={() => void answer("accept")}>
          {pending === "accept" ? <Spinner /> : null}
          Accept
        </Button>
        <Button className="flex-1" disabled={pending !== undefined} onClick={() => void answer("decline")}>
          {pending === "decline" ? <Spinner /> : null}
          Decline
        </Button>
      </div>
    </div>
  );
}
