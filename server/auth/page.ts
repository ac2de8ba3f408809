import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { runtime } from "../runtime";
import { getAuth } from "./instance";
import { type SignedIn, signedInFromHeaders } from "./member";
import { PATH_HEADER, access } from "./paths";

/** Who is signed in on the page being rendered (read once per request). */
export const currentSignedIn = cache(async (): Promise<SignedIn | null> => {
  const rt = await runtime();
  return signedInFromHeaders(await getAuth(), rt.services.db, await headers());
});

/**
 * The server check of every page, run by the root layout: a members' page needs a valid
 * sign-in and a team (else /sign-in or /welcome); /welcome needs a sign-in. The path
 * comes from proxy.ts; a request without it is treated as a members' page.
 */
export async function checkPageAccess(): Promise<SignedIn | null> {
  const path = (await headers()).get(PATH_HEADER) ?? "/";
  const needs = access(path.split("?")[0] ?? "/");
  const signedIn = await currentSignedIn();
  if (needs === "public") return signedIn;
  if (!signedIn) redirect(path === "/" ? "/sign-in" : `/sign-in?next=${encodeURIComponent(path)}`);
  if (needs === "member" && !signedIn.team) redirect("/welcome");
  return signedIn;
}
