import { createMemoryTraceStore } from './memory-trace-store';
import { describeTraceStore } from './trace-store-suite';

describeTraceStore('memory', () => createMemoryTraceStore());
