import { Badge } from "@/components/ui/badge";
import { type BadgeInput, workState } from "./view";

/**
 * A session's branch (monospace, cut to fit) and where its work stands, as the dashboard
 * and the session list show it; sessions without a workspace show nothing.
 */
export function BranchBadge({ workspace, className = "" }: { workspace: (BadgeInput & { branch: string }) | undefined; className?: string }) {
  if (!workspace) return null;
  const state = workState(workspace);
  return (
    <span data-testid="workspace-badge" data-branch={workspace.branch} data-state={state.key} className={`inline-flex max-w-full min-w-0 items-center gap-1.5 ${className}`}>
      <span className="min-w-0 truncate font-mono text-xs text-zinc-600" title={workspace.branch}>
        {workspace.branch}
      </span>
      <span title={state.title} className="shrink-0">
        <Badge tone={state.tone}>{state.label}</Badge>
      </span>
    </span>
  );
}
