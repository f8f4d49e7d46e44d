import { expect, type Locator, type Page } from '@playwright/test';

export type ChartRange = 'hour' | 'day' | 'week';

/** The charts of the tools catalog (`/tools`) and of a tool page (`/tools/<name>`). */
export class ChartsPage {
  constructor(readonly page: Page) {}

  /** Opens a tool's page (or the catalog, with no tool) on `range` and waits for drawn charts. */
  async goto(tool: string | null, range?: ChartRange) {
    const path = tool === null ? '/tools' : `/tools/${encodeURIComponent(tool)}`;
    await this.page.goto(range ? `${path}?range=${range}` : path);
    await expect(this.page.getByTestId(tool === null ? 'tools-table' : 'tool-page')).toBeVisible();
    await expect(this.callsChart(tool).locator('svg.recharts-surface')).toBeVisible();
  }

  /** A chart figure: `calls`, `errors` or `latency`; of one tool, or of all tools when `tool` is null. */
  chart(tool: string | null, kind: 'calls' | 'errors' | 'latency'): Locator {
    return this.page.getByTestId(`${tool === null ? 'all-chart' : 'tool-chart'}-${kind}`);
  }

  callsChart(tool: string | null): Locator {
    return this.chart(tool, 'calls');
  }

  /** The drawn bars of the calls chart (recharts draws one path per non-empty bar). */
  bars(tool: string | null): Locator {
    return this.callsChart(tool).locator('.recharts-bar-rectangle path');
  }

  summary(tool: string | null, kind: 'calls' | 'errors' | 'latency'): Locator {
    return this.page.getByTestId(`${tool === null ? 'all-chart' : 'tool-chart'}-${kind}-summary`);
  }

  rangeLink(range: ChartRange): Locator {
    return this.page.getByTestId('range-switch').locator(`a[data-range="${range}"]`);
  }

  toolRow(tool: string): Locator {
    return this.page.locator(`[data-testid="tool-row"][data-tool="${tool}"]`);
  }
}
