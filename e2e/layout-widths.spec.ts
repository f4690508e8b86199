/**
 * The layout at common window widths: nothing makes the page scroll sideways; the conversation
 * index's toolbar stays one row from 1280 px down to a 768 px window with a scrollbar; the
 * navigation fits a 390 px phone (behind a Menu button) in both languages; and the timeline
 * shows every envelope's label whole, the last lane's self-arrows (memory_write) included.
 */
import type { Page } from "@playwright/test";
import { expect, test, uniqueSuffix } from "./fixtures";

/** Desktop and tablet widths, and 753: a 768 px window less a 15 px classic scrollbar (headless Chromium hides its scrollbars). */
const WIDE = [1280, 1024, 768, 753];
const PHONE = 390;

/** True when the page is no wider than its window. */
function noSidewaysScroll(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`the index fits its window at common widths (${locale})`, async ({ page, conversationIndex, baseURL }) => {
    await page.context().addCookies([{ name: "astrion_locale", value: locale, url: baseURL! }]);
    for (const width of [...WIDE, PHONE]) {
      await page.setViewportSize({ width, height: 900 });
      await conversationIndex.goto();
      expect(await noSidewaysScroll(page), `${width} px`).toBe(true);
      const toolbar = page.getByTestId("conversation-toolbar");
      const controls = [page.getByTestId("conversation-search"), page.getByTestId("conversation-filter"), page.getByTestId("new-conversation-open"), page.getByTestId("conversation-import-input").locator("..")];
      const tops = await Promise.all(controls.map(async (c) => Math.round((await c.boundingBox())!.y + (await c.boundingBox())!.height / 2)));
      if (width !== PHONE) {
        // One row: every control's middle on one line, and the toolbar as tall as its tallest control.
        expect(new Set(tops).size, `${width} px: ${tops.join(", ")}`).toBe(1);
        expect((await toolbar.boundingBox())!.height, `${width} px`).toBeLessThan(50);
      } else {
        // On a phone the search box has the first row to itself, the other controls come under it.
        expect(tops[1]!, `${width} px`).toBeGreaterThan(tops[0]!);
      }
    }
  });

  test(`the navigation fits a ${PHONE} px phone behind a Menu button (${locale})`, async ({ page, conversationIndex, baseURL }) => {
    await page.context().addCookies([{ name: "astrion_locale", value: locale, url: baseURL! }]);
    await page.setViewportSize({ width: PHONE, height: 800 });
    await conversationIndex.goto();
    expect(await noSidewaysScroll(page)).toBe(true);
    const menu = page.getByTestId("nav-menu");
    const roles = page.getByTestId("nav-roles");
    await expect(menu).toBeVisible();
    await expect(menu).toHaveAttribute("aria-expanded", "false");
    await expect(roles).toBeHidden();
    // The header keeps one row: the name, the menu and the language switch.
    const header = await page.locator("header").boundingBox();
    expect(header!.height).toBeLessThan(60);

    await menu.click();
    await expect(menu).toHaveAttribute("aria-expanded", "true");
    await expect(roles).toBeVisible();
    expect(await noSidewaysScroll(page)).toBe(true);
    await roles.click();
    await expect(page).toHaveURL(/\/roles$/);
    await expect(roles).toBeHidden();
    await expect(page.getByTestId("role-list")).toBeVisible();

    // From the sm width up the links are in the header's row, with no menu.
    await page.setViewportSize({ width: 768, height: 800 });
    await expect(menu).toBeHidden();
    await expect(roles).toBeVisible();
    await expect(roles).toHaveAttribute("aria-current", "page");
  });
}

test("the timeline shows every label whole at common widths, the last lane's self-arrow included", async ({ page, request, projectDir }) => {
  test.setTimeout(120_000);
  const goal = `Review the code in this folder for security issues ${uniqueSuffix()}`;
  const created = await request.post("/api/conversations", { data: { title: `Widths ${uniqueSuffix()}`, project_path: projectDir, model_key: "offline", goal } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).conversation.id as string;
  // The run ends with the distilled memory written: a system event drawn on the system lane, the last one.
  await expect
    .poll(async () => ((await (await request.get(`/api/conversations/${id}/timeline`)).json()).records as Array<{ action: string }>).some((r) => r.action === "memory_write"), { timeout: 60_000 })
    .toBe(true);

  for (const width of [1280, 1024, 768]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/conversations/${id}`);
    await page.getByTestId("conversation-tab-timeline").click();
    await expect(page.locator('[data-testid="timeline-arrow"][data-action="memory_write"]').first()).toBeVisible();
    const report = await page.evaluate(() => {
      const scroll = document.querySelector('[data-testid="timeline-scroll"]')!;
      const sideways = scroll.scrollWidth > scroll.clientWidth;
      const cut = [...document.querySelectorAll<HTMLElement>('[data-testid="timeline-arrow"]')].flatMap((row) => {
        const label = row.querySelector<HTMLElement>('[data-testid="timeline-arrow-label"]')!;
        const l = label.getBoundingClientRect();
        const r = row.getBoundingClientRect();
        const whole = label.scrollWidth <= label.clientWidth && l.left >= r.left - 0.5 && l.right <= r.right + 0.5;
        return whole ? [] : [`${row.dataset.action}: ${Math.round(l.left)}–${Math.round(l.right)} in ${Math.round(r.left)}–${Math.round(r.right)}`];
      });
      return { sideways, cut, page: document.documentElement.scrollWidth <= document.documentElement.clientWidth };
    });
    expect(report, `${width} px`).toEqual({ sideways: false, cut: [], page: true });
  }
});
