import { errorData } from './errors';
import type { LiveCall } from './live-call';
import type { Redactor } from './redact';
import type { Registry } from './registry';
import { sideEffectOf } from './side-effect';
import type { StageRecorder } from './stage-recorder';
import type { AnyTool, SideEffect, ToolErrorData } from './types';
import { validateInput } from './validate-input';

export type ValidateOutcome =
  | { ok: true; tool: AnyTool; input: unknown; sideEffect: SideEffect }
  | { ok: false; error: ToolErrorData };

/**
 * Stage 2: the tool exists (UNKNOWN_TOOL naming the available ones otherwise), can run now
 * (UPSTREAM_UNAVAILABLE while its MCP server is down) and the arguments match its schema
 * (INVALID_ARGUMENTS per field). Either way the record gets the arguments
 * redacted, and the call its secrets, so that later stages scrub them from everything.
 */
export function runValidateStage(
  deps: { registry: Registry; redactor: Redactor },
  call: {
    args: unknown;
    live: LiveCall;
    stages: StageRecorder;
    /** False in recording mode: a served call runs nothing; a miss that runs finds the tool down at execute. */
    checkAvailability?: boolean;
  },
): ValidateOutcome {
  const { live, stages } = call;
  const record = live.record;
  const start = stages.lastAt;
  const tool = deps.registry.get(record.tool);
  if (!tool) {
    const redacted = deps.redactor.redact(call.args);
    record.arguments = redacted.value;
    live.secrets = redacted.secrets;
    // Not one of ours: the name the model made up is text like any other.
    record.tool = deps.redactor.scrubText(record.tool, redacted.secrets);
    const available = deps.registry.list().map((t) => t.name);
    const error = errorData('UNKNOWN_TOOL', `There is no tool named "${record.tool}".`, {
      hint: `Call one of: ${available.join(', ') || '(none registered)'}.`,
      details: { available },
      stage: 'validate',
    });
    stages.add('validate', start, 'failed', error.message);
    return { ok: false, error };
  }
  const redacted = deps.redactor.redact(call.args, tool.sensitivePaths);
  record.arguments = redacted.value;
  live.secrets = redacted.secrets;
  const availability = call.checkAvailability === false ? undefined : tool.availability?.();
  if (availability && !availability.available) {
    record.sideEffect = tool.sideEffect;
    const error = errorData('UPSTREAM_UNAVAILABLE', availability.reason ?? `${tool.name} is not available now.`, {
      stage: 'validate',
    });
    stages.add('validate', start, 'failed', error.message);
    return { ok: false, error };
  }
  // Large arguments are checked in bounded time (see validateInput): their JSON length is known.
  const validated = validateInput(tool.name, tool.inputSchema, call.args, record.rawArguments.length);
  if (!validated.ok) {
    record.sideEffect = tool.sideEffect;
    stages.add('validate', start, 'failed', validated.error.message);
    return { ok: false, error: validated.error };
  }
  const sideEffect = sideEffectOf(tool, validated.value);
  record.sideEffect = sideEffect;
  stages.add('validate', start, 'ok', null);
  return { ok: true, tool, input: validated.value, sideEffect };
}
