import { type ReactNode, useId } from "react";

/** One titled card of the Team page (a region named by its title). */
export function Section({ title, description, children, testId }: { title: string; description?: ReactNode; children: ReactNode; testId?: string }) {
  const titleId = useId();
  return (
    <section aria-labelledby={titleId} className="rounded-2xl border border-zinc-200 bg-white p-5 shadow-sm" data-testid={testId}>
      <h2 id={titleId} className="text-sm font-semibold text-zinc-900">
        {title}
      </h2>
      {description ? <p className="mt-0.5 text-sm text-zinc-500">{description}</p> : null}
      <div className="mt-4">{children}</div>
    </section>
  );
}

/** The note a member who is not an owner or admin reads in place of a section's controls: "Only the team's owners and admins can <may>." */
export function AdminsOnly({ testId, may }: { testId: string; may: string }) {
  return (
    <p data-testid={testId} className="mt-3 text-sm text-zinc-500">
      Only the team’s owners and admins can {may}.
    </p>
  );
}
