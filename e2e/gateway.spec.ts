/**
 * The protocol gateway in the browser: Settings lists gateway.json's sources with their tools and
 * effects, a source that does not load with its error, and a broken file with its error — never
 * a header value; a role's `gateway:` sources show on its card and in the editor. In English and
 * Chinese.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, readRoleFile, test, uniqueSuffix } from "./fixtures";

const HEADER_SECRET = "literal-header-value-9d2f";

test.afterEach(({ astrionHome }) => {
  fs.rmSync(path.join(astrionHome, "gateway.json"), { force: true });
});

test("Settings lists the gateway's sources, tools and errors, without header values", async ({ page, astrionHome }) => {
  fs.writeFileSync(
    path.join(astrionHome, "gateway.json"),
    JSON.stringify({
      sources: {
        shop: {
          type: "openapi",
          base_url: "http://127.0.0.1:9/api",
          headers: { Authorization: `Bearer ${HEADER_SECRET}`, "X-Key": "${SHOP_KEY}" },
          spec: { openapi: "3.1.0", paths: { "/orders/{id}": { get: { operationId: "getOrder" }, delete: { operationId: "cancelOrder" } } } },
        },
        broken: { type: "openapi", spec: "specs/missing.yaml" },
      },
    }),
  );
  await page.goto("/settings");
  const shop = page.locator('[data-testid="settings-gateway-source"][data-source="shop"]');
  await expect(shop).toContainText("http://127.0.0.1:9/api");
  await expect(shop).toContainText("Authorization, X-Key");
  await expect(shop.locator('[data-testid="settings-gateway-tool"][data-tool="gw__shop__getOrder"]')).toContainText("reads");
  await expect(shop.locator('[data-testid="settings-gateway-tool"][data-tool="gw__shop__cancelOrder"]')).toContainText("writes");
  const broken = page.locator('[data-testid="settings-gateway-source"][data-source="broken"]');
  await expect(broken.getByTestId("settings-gateway-source-error")).toContainText("spec file specs/missing.yaml not found");
  expect(await page.content()).not.toContain(HEADER_SECRET);

  await page.getByTestId("locale-zh-CN").click();
  await expect(page.getByTestId("settings-gateway")).toContainText("协议网关");
  await expect(shop.locator('[data-testid="settings-gateway-tool"][data-tool="gw__shop__getOrder"]')).toContainText("只读");
  await page.getByTestId("locale-en").click();

  fs.writeFileSync(path.join(astrionHome, "gateway.json"), "{ not json");
  await page.reload();
  await expect(page.getByTestId("settings-gateway-file-error")).toContainText("gateway.json is not valid JSON");
  await expect(page.getByTestId("settings-problems")).toContainText("gateway.json");
});

test("a role's gateway sources show on its card and in its editor, and are saved from it", async ({ page, astrionHome, roleLibrary, roleEditor }) => {
  const id = `gw-role-${uniqueSuffix()}`;
  fs.writeFileSync(path.join(astrionHome, "agents", `${id}.md`), `---\nname: ${id}\ndescription: Uses the shop API\ngateway: [shop, billing]\ntools: [gw__crm__findCustomer, Read]\n---\nYou work.\n`);
  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card.getByTestId("role-card-gateway")).toHaveText("Gateway sources: shop, billing");
  await expect(card.locator('[data-testid="role-tool-mapping-line"][data-kind="gateway"]')).toContainText("gw__crm__findCustomer → protocol gateway tool of source crm");
  await roleEditor.goto(id);
  await expect(page.getByTestId("role-field-gateway")).toHaveValue("shop, billing");
  await page.getByTestId("role-field-gateway").fill("shop");
  await roleEditor.save();
  await expect.poll(() => readRoleFile(astrionHome, id).frontmatter.gateway).toEqual(["shop"]);
  await page.getByTestId("role-field-gateway").fill("bad__name");
  await roleEditor.save();
  await expect(page.getByText(/gateway source name/)).toBeVisible();
});
