/**
 * One server-sent event frame: its `event` name (default `message`), `data` lines joined, `id` if it
 * had one. A frame with an id and no data has the event name `''`: it only moves the last event id.
 */
export interface SseFrame {
  event: string;
  data: string;
  id: string | null;
}

/**
 * An incremental parser of `text/event-stream` as the HTML standard defines it: feed it decoded
 * text in chunks of any size (a frame may span chunks, a chunk many frames); it returns the frames
 * completed so far. `retry:` and comment lines are ignored; CRLF, CR and LF all end a line.
 * @example const parse = createSseParser(); for (const frame of parse(chunk)) …
 */
export function createSseParser(): (chunk: string) => SseFrame[] {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | null = null;
  let sawData = false;

  const line = (text: string, frames: SseFrame[]) => {
    if (text === '') {
      if (sawData) frames.push({ event: event || 'message', data: data.join('\n'), id });
      // A frame with an id and no data dispatches nothing but moves the last event id (the standard's rule).
      else if (id !== null) frames.push({ event: '', data: '', id });
      event = '';
      data = [];
      id = null;
      sawData = false;
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      sawData = true;
    } else if (field === 'id' && !value.includes('\0')) id = value;
  };

  // A CR ended the last line: an LF right after it is the second half of that CRLF.
  let afterCr = false;
  return (chunk) => {
    buffer += chunk;
    const frames: SseFrame[] = [];
    let start = 0;
    if (afterCr && buffer.startsWith('\n')) start = 1;
    afterCr = false;
    for (let i = start; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      line(buffer.slice(start, i), frames);
      if (c === '\r') {
        if (i === buffer.length - 1) afterCr = true;
        else if (buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
    return frames;
  };
}
