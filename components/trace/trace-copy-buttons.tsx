'use client';

import { curlCommand, type ReplayableCall, replayBody, toolCallJson } from '@/lib/ui/replay';
import { CopyButton } from '../copy-button';

/** Copy buttons of the trace header: trace id, the tool call as JSON, and a curl replay command. */
export function TraceCopyButtons({ traceId, call }: { traceId: string; call: ReplayableCall }) {
  return (
    <>
      <CopyButton text={traceId} label="Copy trace id" testId="copy-trace-id" />
      <CopyButton
        text={JSON.stringify(toolCallJson(call), null, 2)}
        label="Copy tool call JSON"
        testId="copy-tool-call"
      />
      <CopyButton
        getText={() => curlCommand(window.location.origin, replayBody(call))}
        label="Copy curl replay"
        testId="copy-curl"
      />
    </>
  );
}
