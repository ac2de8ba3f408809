import { health, httpStatusOf } from "@/server/health";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * Whether this instance can serve (for load balancers): its database, event bridge and
 * run-lock connection, and whether it is shutting down. 200 when all is well, else 503.
 */
export async function GET() {
  const result = await health(runtime);
  return Response.json(result, { status: httpStatusOf(result), headers: { "cache-control": "no-store" } });
}
