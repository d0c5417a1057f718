import type { GenerationRequest } from '../../../contracts/ai-requests';
import { landingPageTemplate } from './landing-page';
import { sequenceTemplate } from './sequence';
import { stagesTemplate, statusesTemplate } from './statuses';

/** The deterministic answer for any generation request (no model, or the model failed). */
export function templateFor(req: GenerationRequest): unknown {
  switch (req.kind) {
    case 'sequence':
      return sequenceTemplate(req.input);
    case 'landing-page':
      return landingPageTemplate(req.input);
    case 'statuses':
      return statusesTemplate(req.input);
    case 'opportunity-stages':
      return stagesTemplate(req.input);
  }
}
