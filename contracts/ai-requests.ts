/** Inputs of the four generators, shared by the API schemas, the workflow and the templates. */
export interface SequenceRequest {
  prompt: string;
  industry?: string;
  tone?: string;
  emailCount?: string;
}

export interface LandingPageRequest {
  prompt: string;
  industry?: string;
  goal?: string;
  tone?: string;
}

export interface PromptOnlyRequest {
  prompt: string;
}

export type GenerationRequest =
  | { kind: 'sequence'; input: SequenceRequest }
  | { kind: 'landing-page'; input: LandingPageRequest }
  | { kind: 'statuses'; input: PromptOnlyRequest }
  | { kind: 'opportunity-stages'; input: PromptOnlyRequest };

export type GenerationKind = GenerationRequest['kind'];
