"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { authClient, authErrorMessage, reloadTo } from "@/components/auth/client";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorNotice, Loading, Spinner, errorMessage } from "@/components/ui/feedback";
import { formatBytes } from "@/components/workspace/view";
import type { TeamInfo } from "@/server/auth/member";
import type { ProjectUsage } from "@/server/workspace/publish";
import { PermissionPolicy } from "./permission-policy";
import { ProjectSources } from "./project-sources";
import { Section } from "./section";
import { TeamInstructions } from "./team-instructions";
import { TeamProviders } from "./team-providers";
import { TeamSecrets } from "./team-secrets";
import { ToolServers } from "./tool-servers";

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

type Role = TeamInfo["role"];
const ROLES: Role[] = ["member", "admin", "owner"];

/** better-auth answers `{ data, error }`; React Query wants a value or a throw. */
async function unwrap<T>(call: Promise<{ data: T | null; error: { message?: string; statusText?: string } | null }>): Promise<T> {
  const { data, error } = await call;
  if (error || data === null) throw new Error(authErrorMessage(error));
  return data;
}

function Alert({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="mt-2 text-sm text-red-600">
      {errorMessage(error)}
    </p>
  );
}

/**
 * The active team: its members and their roles, invitations (whose links the admin
 * passes on: there is no mail server), and its projects. Admins and owners manage; members
 * see. better-auth's organization endpoints enforce the same rules on the server.
 */
export function TeamPage({ team, userId }: { team: TeamInfo; userId: string }) {
  const queryClient = useQueryClient();
  const isAdmin = team.role === "owner" || team.role === "admin";
  const key = ["team", team.id] as const;
  const full = useQuery({
    queryKey: key,
    queryFn: () => fullTeam(team.id),
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: key });

  if (full.isPending) return <Loading />;
  if (full.error) return <ErrorNotice title="Could not load the team">{errorMessage(full.error)}</ErrorNotice>;
  const invitations = full.data.invitations.filter((invitation) => invitation.status === "pending");

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-xl font-semibold tracking-tight text-zinc-900" data-testid="team-name">
          {full.data.name}
        </h1>
        <p className="text-sm text-zinc-500">You are {team.role === "admin" ? "an admin" : `the ${team.role === "owner" ? "owner" : "member"}`} of this team.</p>
      </div>
      <Members team={team} userId={userId} members={full.data.members} refresh={refresh} />
      {isAdmin ? <Invitations team={team} invitations={invitations} refresh={refresh} /> : null}
      <Projects isAdmin={isAdmin} />
      <TeamInstructions isAdmin={isAdmin} />
      <PermissionPolicy isAdmin={isAdmin} />
      <TeamSecrets isAdmin={isAdmin} />
      <TeamProviders isAdmin={isAdmin} />
      <ToolServers isAdmin={isAdmin} />
    </div>
  );
}

type FullTeam = Awaited<ReturnType<typeof fullTeam>>;
const fullTeam = (organizationId: string) => unwrap(authClient.organization.getFullOrganization({ query: { organizationId } }));
const isRole = (value: string): value is Role => ROLES.some((role) => role === value);

/** The members and their roles: admins change roles and remove members; anyone but the owner may leave. */
function Members({ team, userId, members, refresh }: { team: TeamInfo; userId: string; members: FullTeam["members"]; refresh: () => void }) {
  const isAdmin = team.role === "owner" || team.role === "admin";
  const changeRole = useMutation({
    mutationFn: (input: { memberId: string; role: Role }) =>
      unwrap(authClient.organization.updateMemberRole({ memberId: input.memberId, role: input.role, organizationId: team.id })),
    onSettled: refresh,
  });
  const removeMember = useMutation({
    mutationFn: (memberId: string) => unwrap(authClient.organization.removeMember({ memberIdOrEmail: memberId, organizationId: team.id })),
    onSettled: refresh,
  });
  const leave = useMutation({
    mutationFn: () => unwrap(authClient.organization.leave({ organizationId: team.id })),
    onSuccess: () => reloadTo("/"),
  });
  return (
    <Section title="Members">
      <ul className="divide-y divide-zinc-100" data-testid="members">
        {members.map((member) => (
          <li key={member.id} className="flex flex-wrap items-center gap-3 py-2.5" data-testid="member" data-email={member.user.email}>
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium text-zinc-900">{member.user.name}</p>
              <p className="truncate text-xs text-zinc-500">{member.user.email}</p>
            </div>
            {isAdmin && member.userId !== userId ? (
              <>
                <select
                  aria-label={`Role of ${member.user.email}`}
                  value={member.role}
                  onChange={(event) => {
                    if (isRole(event.target.value)) changeRole.mutate({ memberId: member.id, role: event.target.value });
                  }}
                  className={INPUT}
                >
                  {ROLES.map((role) => (
                    <option key={role} value={role} disabled={role === "owner" && team.role !== "owner"}>
                      {role}
                    </option>
                  ))}
                </select>
                <Button size="sm" variant="ghost" onClick={() => removeMember.mutate(member.id)}>
                  Remove
                </Button>
              </>
            ) : (
              <Badge>{member.role}</Badge>
            )}
            {member.userId === userId && team.role !== "owner" ? (
              <Button size="sm" variant="ghost" onClick={() => leave.mutate()}>
                Leave team
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
      <Alert error={changeRole.error ?? removeMember.error ?? leave.error} />
    </Section>
  );
}

/** Inviting someone (the link is passed on by hand) and the pending invitations (admins). */
function Invitations({ team, invitations, refresh }: { team: TeamInfo; invitations: FullTeam["invitations"]; refresh: () => void }) {
  const [invited, setInvited] = useState<{ email: string; link: string }>();
  const invite = useMutation({
    mutationFn: (input: { email: string; role: Role }) =>
      unwrap(authClient.organization.inviteMember({ email: input.email, role: input.role, organizationId: team.id })),
    onSuccess: (invitation) => {
      setInvited({ email: invitation.email, link: `${window.location.origin}/invite/${invitation.id}` });
      refresh();
    },
  });
  const cancelInvitation = useMutation({
    mutationFn: (invitationId: string) => unwrap(authClient.organization.cancelInvitation({ invitationId })),
    onSettled: refresh,
  });
  function submitInvite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const role = String(form.get("role"));
    invite.mutate({ email: String(form.get("email")).trim(), role: isRole(role) ? role : "member" });
  }
  return (
    <Section title="Invite someone" description="Parley sends no email: copy the link and pass it on. It works for the address you enter, for 7 days.">
      <form onSubmit={submitInvite} className="flex flex-wrap items-center gap-2" data-testid="invite-form">
        <input name="email" type="email" required placeholder="name@example.com" aria-label="Email" className={`${INPUT} min-w-56 flex-1`} />
        <select name="role" aria-label="Role" defaultValue="member" className={INPUT}>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </select>
        <Button type="submit" variant="primary" disabled={invite.isPending}>
          {invite.isPending ? <Spinner /> : null}
          Invite
        </Button>
      </form>
      <Alert error={invite.error} />
      {invited ? <InvitationLink email={invited.email} link={invited.link} /> : null}
      {invitations.length > 0 ? (
        <ul className="mt-4 divide-y divide-zinc-100 border-t border-zinc-100" data-testid="invitations">
          {invitations.map((invitation) => (
            <li key={invitation.id} className="flex flex-wrap items-center gap-3 py-2.5 text-sm" data-testid="invitation" data-email={invitation.email}>
              <span className="min-w-0 flex-1 truncate text-zinc-800">{invitation.email}</span>
              <Badge>{invitation.role}</Badge>
              <CopyButton text={`${typeof window === "undefined" ? "" : window.location.origin}/invite/${invitation.id}`} label="Copy link" />
              <Button size="sm" variant="ghost" onClick={() => cancelInvitation.mutate(invitation.id)}>
                Cancel
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      <Alert error={cancelInvitation.error} />
    </Section>
  );
}

function InvitationLink({ email, link }: { email: string; link: string }) {
  return (
    <div className="mt-3 rounded-lg bg-indigo-50 px-3 py-2.5 text-sm text-indigo-900">
      <p>Invitation for {email}: send them this link.</p>
      <div className="mt-1.5 flex items-center gap-2">
        <input readOnly value={link} data-testid="invitation-link" aria-label="Invitation link" className={`${INPUT} flex-1 font-mono text-xs`} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={link} label="Copy" />
      </div>
    </div>
  );
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="sm"
      onClick={() => {
        void navigator.clipboard.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? "Copied" : label}
    </Button>
  );
}

/** A project's disk use (its folder, its sessions' workspaces) and its live workspaces against the cap; owners and admins only. */
function ProjectUsageLine({ usage }: { usage: ProjectUsage | undefined }) {
  if (!usage) return null;
  const size = (bytes: number | null) => (bytes === null ? "unknown" : formatBytes(bytes));
  const full = usage.liveWorkspaces >= usage.maxWorkspaces;
  return (
    <p className="truncate text-xs text-zinc-500" data-testid="project-usage" data-live={usage.liveWorkspaces} data-max={usage.maxWorkspaces}>
      project folder {size(usage.projectBytes)} · workspaces {size(usage.workspacesBytes)} ·{" "}
      <span className={full ? "font-medium text-amber-700" : undefined} title={`Each workspace may hold up to ${formatBytes(usage.workspaceQuotaBytes)}`}>
        {usage.liveWorkspaces} of {usage.maxWorkspaces} live workspaces
      </span>
    </p>
  );
}

/** The team's project directories; admins register folders inside the configured projects root. */
function Projects({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.project.list.queryOptions());
  const root = useQuery({ ...trpc.project.root.queryOptions(), enabled: isAdmin });
  const invalidate = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.workspace.usage.queryKey() });
    return queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() });
  };
  const create = useMutation(trpc.project.create.mutationOptions({ onSuccess: () => void invalidate() }));
  const remove = useMutation(trpc.project.remove.mutationOptions({ onSettled: () => void invalidate() }));
  const fetchRemote = useMutation(trpc.project.fetch.mutationOptions());
  const usage = useQuery({ ...trpc.workspace.usage.queryOptions(), enabled: isAdmin });
  const usageOf = new Map((usage.data ?? []).map((row) => [row.projectId, row]));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const name = String(data.get("name")).trim();
    create.mutate({ directory: String(data.get("directory")).trim(), name: name || undefined }, { onSuccess: () => form.reset() });
  }

  return (
    <Section title="Projects" description="Sessions work in one of the team's project directories on the server.">
      {projects.error ? <Alert error={projects.error} /> : null}
      <ul className="divide-y divide-zinc-100" data-testid="projects">
        {(projects.data ?? []).map((project) => (
          <li key={project.id} className="flex items-center gap-3 py-2.5" data-testid="project" data-name={project.name}>
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium text-zinc-900">{project.name}</p>
              <p className="truncate font-mono text-xs text-zinc-500">{project.directory}</p>
              <p className="truncate text-xs text-zinc-500" data-testid="project-git">
                {project.source === "clone" ? `cloned from ${project.gitUrl ?? ""}` : project.source === "empty" ? "new repository" : "registered folder"}
                {project.defaultBranch ? ` · default branch ${project.defaultBranch}` : ""}
              </p>
              <ProjectUsageLine usage={usageOf.get(project.id)} />
            </div>
            {project.gitUrl ? (
              <Button size="sm" variant="ghost" disabled={fetchRemote.isPending} onClick={() => fetchRemote.mutate({ projectId: project.id })}>
                Fetch
              </Button>
            ) : null}
            {isAdmin ? (
              <Button size="sm" variant="ghost" onClick={() => remove.mutate({ projectId: project.id })}>
                Remove
              </Button>
            ) : null}
          </li>
        ))}
        {projects.isSuccess && projects.data.length === 0 ? <li className="py-2.5 text-sm text-zinc-500">No project yet.</li> : null}
      </ul>
      <Alert error={remove.error} />
      <Alert error={fetchRemote.error} />
      <Alert error={usage.error} />
      {isAdmin ? <ProjectSources onAdded={() => void invalidate()} /> : null}
      {isAdmin ? (
        <form onSubmit={submit} className="mt-4 flex flex-wrap items-center gap-2 border-t border-zinc-100 pt-4" data-testid="project-form">
          <input name="directory" required placeholder="folder inside the projects root" aria-label="Directory" className={`${INPUT} min-w-56 flex-1 font-mono`} />
          <input name="name" placeholder="name (optional)" aria-label="Project name" maxLength={100} className={`${INPUT} w-40`} />
          <Button type="submit" variant="primary" disabled={create.isPending}>
            {create.isPending ? <Spinner /> : null}
            Add project
          </Button>
          {root.data ? <p className="w-full text-xs text-zinc-500">Projects root: <span className="font-mono">{root.data.root}</span></p> : null}
        </form>
      ) : null}
      <Alert error={create.error} />
    </Section>
  );
}
