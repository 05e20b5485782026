/**
 * From list keys to opened matchers: the lists of one BlockingSnapshot are
 * indexed once (memoised by the snapshot object's identity) and each
 * PolicyDecision is resolved once per snapshot into the allow and block
 * matchers it uses, so a query costs two WeakMap lookups, not a walk over
 * key strings.
 */
import type { CompiledListData, ListMatcher } from "../../blocking/types.ts";
import type {
  BlockingSnapshot,
  BlockResponse,
  PolicyDecision,
} from "../../blocking/blocking_snapshot.ts";

/** Opens one compiled list in this thread (the matcher's `openCompiledList`). */
export type OpenList = (data: CompiledListData) => ListMatcher;

/** One opened list and what a block by it needs. */
export interface OpenedList {
  matcher: ListMatcher;
  /** The BlockList's display name (answers, EDE text, query log). */
  name: string;
  /** The list's own answer mode, beating the policy's. */
  response: CompiledListData["response"];
}

/** A PolicyDecision with its list keys turned into opened lists. */
export interface ResolvedPolicy {
  decision: PolicyDecision;
  /** Lists whose "matched" verdict allows: decision.allowLists plus any list of mode allow. */
  allow: OpenedList[];
  /** Lists whose "matched" verdict blocks, in decision order. */
  block: OpenedList[];
  /** The answer for blocks by allowOnly and by lists without their own response. */
  response: BlockResponse;
}

/** The answer when a decision carries none (a malformed snapshot): zeroIP, 10 minutes. */
const FALLBACK_RESPONSE: BlockResponse = {
  mode: "zeroIP",
  customIPs: [],
  ttl: 600,
};

/** What went wrong while opening lists; reported by the stage. */
export interface ListProblem {
  key: string;
  error: unknown;
}

/** The opened lists of one BlockingSnapshot. */
class SnapshotLists {
  readonly #data = new Map<string, CompiledListData>();
  /** Opened on first use; null when opening failed (the list then never blocks). */
  readonly #opened = new Map<string, OpenedList | null>();
  readonly #resolved = new WeakMap<PolicyDecision, ResolvedPolicy>();

  constructor(
    blocking: BlockingSnapshot,
    private readonly openList: OpenList,
    private readonly onProblem: (problem: ListProblem) => void,
  ) {
    // A malformed snapshot (not an array) indexes nothing: nothing blocks.
    if (!Array.isArray(blocking.lists)) return;
    for (const data of blocking.lists) {
      if (typeof data?.key === "string") this.#data.set(data.key, data);
    }
  }

  resolve(decision: PolicyDecision): ResolvedPolicy {
    let resolved = this.#resolved.get(decision);
    if (resolved === undefined) {
      resolved = this.#build(decision);
      this.#resolved.set(decision, resolved);
    }
    return resolved;
  }

  #build(decision: PolicyDecision): ResolvedPolicy {
    const allow: OpenedList[] = [];
    const block: OpenedList[] = [];
    const seen = new Set<string>();
    for (const key of keys(decision.allowLists)) {
      const list = this.#open(key);
      if (list !== null && !seen.has(key)) allow.push(list);
      seen.add(key);
    }
    for (const key of keys(decision.blockLists)) {
      const list = this.#open(key);
      if (list === null || seen.has(key)) continue;
      seen.add(key);
      // A list of mode allow among the block lists still only allows.
      (list.matcher.mode === "allow" ? allow : block).push(list);
    }
    const response = decision.response ?? FALLBACK_RESPONSE;
    return { decision, allow, block, response };
  }

  #open(key: string): OpenedList | null {
    const known = this.#opened.get(key);
    if (known !== undefined) return known;
    const data = this.#data.get(key);
    let list: OpenedList | null = null;
    if (data !== undefined) {
      try {
        list = {
          matcher: this.openList(data),
          name: data.name,
          response: data.response,
        };
      } catch (error) {
        this.onProblem({ key, error });
      }
    }
    // Unknown keys are ignored (a list deleted after the policy was read).
    this.#opened.set(key, list);
    return list;
  }
}

function keys(value: unknown): string[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Resolves decisions against the snapshot they came with. Holds the lists
 * of every snapshot still referenced (a query in flight across a swap keeps
 * its own), with the latest one in a field so the common case skips even
 * the WeakMap.
 */
export class PolicyLists {
  readonly #bySnapshot = new WeakMap<BlockingSnapshot, SnapshotLists>();
  #lastSnapshot: BlockingSnapshot | undefined;
  #lastLists: SnapshotLists | undefined;

  constructor(
    private readonly openList: OpenList,
    private readonly onProblem: (problem: ListProblem) => void,
  ) {}

  resolve(
    blocking: BlockingSnapshot,
    decision: PolicyDecision,
  ): ResolvedPolicy {
    let lists = blocking === this.#lastSnapshot ? this.#lastLists : undefined;
    if (lists === undefined) {
      lists = this.#bySnapshot.get(blocking);
      if (lists === undefined) {
        lists = new SnapshotLists(blocking, this.openList, this.onProblem);
        this.#bySnapshot.set(blocking, lists);
      }
      this.#lastSnapshot = blocking;
      this.#lastLists = lists;
    }
    return lists.resolve(decision);
  }
}
