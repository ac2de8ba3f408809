/**
 * What a task (subagent) call answers, in one place: the model reads the `task_id` line
 * (to continue the subagent's work) and the child's final answer inside `<task_result>`;
 * people read only the answer. The card shows the answer the call's metadata holds, or,
 * for a call stored before it did, the answer taken out of the output.
 */

const OPEN = "<task_result>";
const CLOSE = "</task_result>";

/** The output the model reads of a finished task. */
export function taskOutput(sessionId: string, answer: string): string {
  return [`task_id: ${sessionId} (to continue this subagent's work, call task again with this task_id)`, "", OPEN, answer, CLOSE].join("\n");
}

/** The child's answer in a task's output: the text between the first `<task_result>` and the last `</task_result>`; the whole output when it has none. */
export function taskAnswer(output: string): string {
  const start = output.indexOf(OPEN);
  const end = output.lastIndexOf(CLOSE);
  if (start === -1 || end < start) return output;
  return output.slice(start + OPEN.length, end).replace(/^\n/, "").replace(/\n$/, "");
}
