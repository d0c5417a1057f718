import { EngagementEvent, type Message } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { ScopedData } from '../../db/scoped-data';
import type { SuppressionDeps } from '../../domain/communications/apply-suppression';
import { failQueuedMessage } from '../../domain/communications/fail-message';
import { applyEngagements, writeEngagementsIn } from '../../domain/engagement/record-engagement';
import { unitOfWork } from '../../domain/unit-of-work';

/**
 * A recipient the mail server refused for good (RCPT TO 5xx) is a hard bounce, recorded as a
 * reported one would be. The message's move from queued to failed, its `email_bounce` and
 * `email.bounced` commit together, and only the attempt that moves the message writes them: an
 * attempt Temporal runs again after that commit (its worker died, or applying the bounce failed)
 * finds the message failed and records no second bounce. The move sends no `email.failed`: the
 * bounce is this failure's one event. What the bounce implies is applied after the commit.
 */
export async function recordBounceAtSending(deps: SuppressionDeps, scope: TenantScope, message: Message, reason: string): Promise<void> {
  await unitOfWork({ ...deps, scope }, async (tx) => {
    if (!(await failQueuedMessage(tx, message, reason, { emit: false }))) return;
    await writeEngagementsIn(deps, tx, [
      {
        type: 'email_bounce',
        leadId: message.leadId,
        message,
        workflowExecutionId: null,
        occurredAt: new Date(),
        machine: false,
        details: { reason: reason.slice(0, 1000) },
      },
    ]);
  });
  await finishBounceAtSending(deps, scope, message);
}

/**
 * Applies a failed message's recorded bounce (the address suppressed, its leads marked, their
 * enrollments stopped): the attempt that recorded it may have stopped before all of that was
 * done, so every later attempt applies it again, which changes nothing once it is done.
 */
export async function finishBounceAtSending(deps: SuppressionDeps, scope: TenantScope, message: Message): Promise<void> {
  const [bounce] = await new ScopedData(deps.db.manager, scope)
    .repo(EngagementEvent)
    .find({ where: { messageId: message.id, type: 'email_bounce' }, order: { id: 'ASC' }, take: 1 });
  if (bounce) await applyEngagements(deps, scope, [{ ...bounce, message }]);
}
