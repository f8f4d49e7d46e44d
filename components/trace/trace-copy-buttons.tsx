'use client';

import { agentRequestBody, type CopyableCall, curlCommand, toolCallJson } from '@/lib/ui/agent-request';
import { CopyButton } from '../copy-button';

/** Copy buttons of the trace header: trace id, the tool call as JSON, and the agent's request as curl (redacted). */
export function TraceCopyButtons({ traceId, call }: { traceId: string; call: CopyableCall }) {
  return (
    <>
      <CopyButton text={traceId} label="Copy trace id" testId="copy-trace-id" />
      <CopyButton
        text={JSON.stringify(toolCallJson(call), null, 2)}
        label="Copy tool call JSON"
        testId="copy-tool-call"
      />
      <CopyButton
        getText={() => curlCommand(window.location.origin, agentRequestBody(call))}
        label="Copy request as curl (redacted)"
        testId="copy-curl"
      />
    </>
  );
}
