"use client";

const SELECT =
  "h-8 rounded-lg border-0 bg-white px-2 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600";

/** A model per agent: a turn of that agent uses it when the prompt names no model (an API call, a command); saved with the team's models. */
export function AgentModels({
  agents,
  models,
  value,
  disabled,
  onChange,
}: {
  agents: string[];
  models: { providerId: string; modelId: string; name: string }[];
  value: Record<string, string>;
  disabled: boolean;
  onChange: (next: Record<string, string>) => void;
}) {
  if (agents.length === 0) return null;
  const set = (agent: string, model: string) => {
    const next = { ...value };
    if (model) next[agent] = model;
    else delete next[agent];
    onChange(next);
  };
  return (
    <div className="mt-3 flex flex-wrap items-center gap-x-4 gap-y-2" data-testid="agent-models">
      <span className="text-sm text-zinc-700">Per agent</span>
      {agents.map((agent) => (
        <label key={agent} className="flex max-w-full min-w-0 items-center gap-2 text-sm text-zinc-700">
          <span className="shrink-0 font-mono">@{agent}</span>
          <select value={value[agent] ?? ""} disabled={disabled} onChange={(e) => set(agent, e.target.value)} className={`${SELECT} min-w-0 max-w-full flex-1`} data-testid="agent-model" data-agent={agent}>
            <option value="">Not set</option>
            {models.map((m) => (
              <option key={`${m.providerId}/${m.modelId}`} value={`${m.providerId}/${m.modelId}`}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}
