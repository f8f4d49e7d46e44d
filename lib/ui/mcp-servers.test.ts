import { describe, expect, it } from 'vitest';
import { groupByServer, isDown, serverOfTool } from './mcp-servers';

describe('serverOfTool', () => {
  it('names the server of a namespaced tool, only among the servers configured', () => {
    const servers = new Set(['fs', 'everything']);
    expect(serverOfTool('fs__read_file', servers)).toBe('fs');
    expect(serverOfTool('everything__echo', servers)).toBe('everything');
    expect(serverOfTool('calculator', servers)).toBeNull();
    expect(serverOfTool('gone__tool', servers)).toBeNull();
    expect(serverOfTool('__odd', servers)).toBeNull();
  });
});

describe('groupByServer', () => {
  it('puts tools of no server first, then each server in order, keeping empty groups', () => {
    const tools = [{ name: 'calculator' }, { name: 'fs__read_file' }, { name: 'b__x' }, { name: 'fs__list' }];
    expect(groupByServer(tools, ['fs', 'a', 'b'])).toEqual([
      { server: null, tools: [{ name: 'calculator' }] },
      { server: 'fs', tools: [{ name: 'fs__read_file' }, { name: 'fs__list' }] },
      { server: 'a', tools: [] },
      { server: 'b', tools: [{ name: 'b__x' }] },
    ]);
  });
});

describe('isDown', () => {
  it('counts every state but connected as down', () => {
    expect(isDown('connected')).toBe(false);
    for (const state of ['connecting', 'failed', 'disconnected', 'closed'] as const) expect(isDown(state)).toBe(true);
  });
});
