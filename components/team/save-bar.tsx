import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";

/**
 * The foot of a Team page editor: where its changes stand (`status`, read out as they
 * change), "Discard changes" and the save button (`saveLabel`), both only while there are
 * unsaved changes and no save under way.
 */
export function SaveBar({ testId, status, dirty, saving, onDiscard, saveLabel, className }: { testId: string; status: string; dirty: boolean; saving: boolean; onDiscard: () => void; saveLabel: string; className: string }) {
  return (
    <div className={`flex flex-wrap items-center justify-end gap-2 ${className}`}>
      <p role="status" data-testid={testId} className="mr-auto text-sm text-zinc-500">
        {status}
      </p>
      <Button onClick={onDiscard} disabled={!dirty || saving}>
        Discard changes
      </Button>
      <Button type="submit" variant="primary" disabled={!dirty || saving}>
        {saving ? <Spinner /> : null}
        {saveLabel}
      </Button>
    </div>
  );
}
