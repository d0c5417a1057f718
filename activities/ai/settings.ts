import type { Config } from '../../lib/config';

/** How the AI activities reach a model; built at the composition root (tests point it at a local server). */
export interface AiSettings {
  /** No key: the activity answers `not_configured` and the workflow uses the templates. */
  apiKey?: string;
  model: string;
  /** Any OpenAI-compatible server; unset means the provider's public address. */
  baseUrl?: string;
  /** Per model call; a call that takes longer fails and Temporal retries it. */
  requestTimeoutMs: number;
}

export function aiSettingsFromConfig(c: Config): AiSettings {
  return { apiKey: c.AI_API_KEY, model: c.AI_MODEL, baseUrl: c.AI_BASE_URL, requestTimeoutMs: c.AI_REQUEST_TIMEOUT_MS };
}
