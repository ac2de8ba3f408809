"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { PASSWORD_LENGTH, PASSWORD_RULE } from "@/lib/password";
import { authClient, reloadTo } from "./client";
import { useAuthForm } from "./use-auth-action";

const INPUT =
  "block h-10 w-full rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="block space-y-1.5">
      <span className="text-sm font-medium text-zinc-700">{label}</span>
      {children}
    </label>
  );
}

export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <div className="mx-auto mt-6 max-w-sm rounded-2xl border border-zinc-200 bg-white p-6 shadow-sm sm:mt-12">
      <h1 className="text-lg font-semibold tracking-tight text-zinc-900">{title}</h1>
      {subtitle ? <div className="mt-1 text-sm text-zinc-500">{subtitle}</div> : null}
      <div className="mt-5">{children}</div>
    </div>
  );
}

/** What the server refused (better-auth's message). */
export function FormError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" data-testid="auth-error" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700">
      {message}
    </p>
  );
}

/** The end of an auth form: what the server refused, and the submit button (busy while `pending`). */
export function FormSubmit({ error, pending, children }: { error: string | undefined; pending: boolean | undefined; children: ReactNode }) {
  return (
    <>
      <FormError message={error} />
      <Button type="submit" variant="primary" className="w-full" disabled={pending}>
        {pending ? <Spinner /> : null}
        {children}
      </Button>
    </>
  );
}

/** The way to the other form (sign in ↔ sign up). */
function OtherForm({ question, href, label }: { question: string; href: string; label: string }) {
  return (
    <p className="text-center text-sm text-zinc-500">
      {question}{" "}
      <Link href={href} className="font-medium text-indigo-600 hover:text-indigo-500">
        {label}
      </Link>
    </p>
  );
}

/** Email + password sign-in; then back to `next` (already checked to stay on this site). `email` prefills the email (an invitation's). */
export function SignInForm({ next, signUpHref, email }: { next: string; signUpHref: string; email?: string | undefined }) {
  const { pending, error, onSubmit } = useAuthForm(
    (form) => authClient.signIn.email({ email: String(form.get("email")), password: String(form.get("password")) }),
    () => reloadTo(next),
  );
  return (
    <form onSubmit={onSubmit} className="space-y-4" data-testid="sign-in-form">
      <Field label="Email">
        <input name="email" type="email" autoComplete="email" required defaultValue={email} className={INPUT} />
      </Field>
      <Field label="Password">
        <input name="password" type="password" autoComplete="current-password" required className={INPUT} />
      </Field>
      <FormSubmit error={error} pending={pending}>
        Sign in
      </FormSubmit>
      <OtherForm question="No account yet?" href={signUpHref} label="Sign up" />
    </form>
  );
}

/**
 * Name, email and password. With an invitation, the new account accepts it at once and
 * lands in the inviting team; otherwise the server decides the team (server/auth/policy.ts).
 * `email` prefills the email (the one invited).
 */
export function SignUpForm({ invitationId, signInHref, email }: { invitationId: string | undefined; signInHref: string; email?: string | undefined }) {
  const { pending, error, onSubmit } = useAuthForm(
    (form) =>
      authClient.signUp.email(
        { name: String(form.get("name")), email: String(form.get("email")), password: String(form.get("password")) },
        // An invited email signs up only with its invitation (server/auth/policy.ts).
        invitationId ? { headers: { "x-parley-invitation": invitationId } } : undefined,
      ),
    async () => {
      if (invitationId) {
        const accepted = await authClient.organization.acceptInvitation({ invitationId });
        // Signed up, but the invitation was for another email or is no longer valid.
        if (accepted.error) return reloadTo(`/invite/${encodeURIComponent(invitationId)}`);
      }
      reloadTo("/");
    },
  );
  return (
    <form onSubmit={onSubmit} className="space-y-4" data-testid="sign-up-form">
      <Field label="Name">
        <input name="name" autoComplete="name" required maxLength={100} className={INPUT} />
      </Field>
      <Field label="Email">
        <input name="email" type="email" autoComplete="email" required defaultValue={email} className={INPUT} />
      </Field>
      <Field label="Password">
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_LENGTH.min}
          maxLength={PASSWORD_LENGTH.max}
          aria-describedby="password-rule"
          className={INPUT}
        />
      </Field>
      {/* The rule is stated before anyone types, not only after a refused submit. */}
      <p id="password-rule" data-testid="password-rule" className="-mt-2 text-xs text-zinc-500">
        {PASSWORD_RULE}
      </p>
      <FormSubmit error={error} pending={pending}>
        {invitationId ? "Sign up and join" : "Sign up"}
      </FormSubmit>
      <OtherForm question="Have an account?" href={signInHref} label="Sign in" />
    </form>
  );
}
