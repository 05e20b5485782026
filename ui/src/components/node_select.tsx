/**
 * The node selector every statistic has: "all nodes" or one. The nodes
 * are the ones the API knows (this node, until there is a cluster).
 */
import { useApi } from "./use_api.ts";
import { strings } from "../strings.ts";

export function NodeSelect(
  { value, onChange }: { value: string; onChange: (node: string) => void },
) {
  const node = useApi<{ name: string }>("node");
  const names = node.data ? [node.data.name] : [];
  if (value !== "" && !names.includes(value)) names.push(value);
  return (
    <label>
      {strings.app.node}
      <select
        value={value}
        onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
      >
        <option value="">{strings.app.allNodes}</option>
        {names.map((n) => <option key={n} value={n}>{n}</option>)}
      </select>
    </label>
  );
}
