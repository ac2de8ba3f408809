import type { z } from "zod";
import { ParleyError } from "./errors";

/**
 * Input validation of domain functions, in one place: a value that does not fit its
 * schema is an INVALID error listing each issue as `path: message`.
 */

/** A readable list of schema issues. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = "input"): string {
  return issues.map((issue) => `${issue.path.map(String).join(".") || root}: ${issue.message}`).join("; ");
}

/** Parse `input` with `schema`, or throw INVALID naming every issue. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw ParleyError.invalid(describeIssues(parsed.error.issues));
  return parsed.data;
}

/**
 * A domain function whose input is validated before it runs: `fn(schema, async (ctx,
 * input) => …)` takes what the schema accepts (`z.input`) and hands the implementation
 * what it produces (`z.output`, defaults filled in). Invalid input rejects the returned
 * promise, like any other failure of the call.
 */
export function fn<S extends z.ZodType, C, R>(schema: S, impl: (ctx: C, input: z.output<S>) => Promise<R>): (ctx: C, input: z.input<S>) => Promise<R> {
  return async (ctx, input) => impl(ctx, parse(schema, input));
}
