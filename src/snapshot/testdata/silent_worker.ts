/** A compile worker that takes jobs and never answers (compile_workers_test.ts). */
/// <reference lib="deno.worker" />
self.onmessage = () => {};
