/** The kudurru version, read from deno.json so there is one place to bump it. */
import denoJson from "../deno.json" with { type: "json" };

export const VERSION: string = denoJson.version;
