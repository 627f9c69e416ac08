/**
 * The PrometheusRule of deploy/kubernetes/monitoring, read by Prometheus' own tool: `promtool check
 * rules` parses every expression and annotation template as the operator's Prometheus will, and
 * `promtool test rules` evaluates the alerts' expressions on series built here, so an alert that
 * parses but never fires (a wrong label, a ratio upside down) fails too. The Grafana dashboard's
 * queries are parsed the same way, its variables filled in as Grafana does. promtool comes with
 * Debian's `prometheus` package, which .ci/run installs; without it these checks are skipped.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const promtool = await run('promtool', ['--version']).then(
  () => true,
  () => false,
);

type Rule = { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> };
let dir: string;
let rulesFile: string;
let rules: Rule[];
/** The expression of alert `name`. */
const exprOf = (name: string) => rules.find((r) => r.alert === name)!.expr;

/** `promtool test rules` on one test group (series every minute), its output on failure. */
async function promtoolTest(name: string, tests: object[]) {
  const file = join(dir, `${name}.test.yaml`);
  const groups = tests.map((group) => ({ interval: '1m', ...group })); // promtool's own default is not a minute
  await writeFile(file, stringify({ rule_files: [rulesFile], evaluation_interval: '1m', tests: groups }));
  return run('promtool', ['test', 'rules', file]).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; stderr?: string }) => {
      throw new Error(`promtool test rules failed:\n${error.stdout}\n${error.stderr}`);
    },
  );
}

beforeAll(async () => {
  const { stdout } = await run('kubectl', ['kustomize', 'deploy/overlays/monitoring'], { maxBuffer: 16 << 20 });
  const rule = parseAllDocuments(stdout).map((doc) => doc.toJS()).find((o) => o.kind === 'PrometheusRule');
  rules = rule.spec.groups.flatMap((g: { rules: Rule[] }) => g.rules);
  dir = await mkdtemp(join(tmpdir(), 'gw-rules-'));
  // The CRD's spec is a Prometheus rules file as it is: the operator hands it over unchanged.
  rulesFile = join(dir, 'rules.yaml');
  await writeFile(rulesFile, stringify(rule.spec));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!promtool)('the PrometheusRule under promtool (skipped where promtool is not installed)', { timeout: 60_000 }, () => {
  it('every expression and annotation template parses', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', rulesFile]);
    expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    // The check has teeth: an expression Prometheus cannot parse is refused.
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, stringify({ groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum by (pod (gateway_inflight_requests)' }] }] }));
    await expect(run('promtool', ['check', 'rules', broken])).rejects.toMatchObject({ stderr: expect.stringContaining('parse error') });
  });

  it('the error ratio fires at 25% server errors, not at 2%', async () => {
    const expr = exprOf('LLMGatewayHighErrorRatio');
    const series = (errors: number, ok: number) => [
      { series: 'gateway_requests_total{outcome="server_error",provider="a",pod="p1"}', values: `0+${errors * 60}x20` },
      { series: 'gateway_requests_total{outcome="ok",provider="a",pod="p1"}', values: `0+${ok * 60}x20` },
    ];
    await promtoolTest('error-ratio', [
      { input_series: series(1, 3), promql_expr_test: [{ expr, eval_time: '15m', exp_samples: [{ labels: '{}', value: 0.25 }] }] },
      { input_series: series(1, 49), promql_expr_test: [{ expr, eval_time: '15m', exp_samples: [] }] },
    ]);
  });

  it('the first-token SLO names the model whose p95 is over 5 s', async () => {
    // `slow`: every first token between 5 and 10 s; `fast`: all within 1 s.
    const buckets = (model: string, counts: Record<string, number>) =>
      Object.entries(counts).map(([le, perMinute]) => ({
        series: `gateway_time_to_first_token_seconds_bucket{model="${model}",le="${le}",pod="p1"}`,
        values: `0+${perMinute}x30`,
      }));
    await promtoolTest('ttft', [
      {
        input_series: [...buckets('slow', { '1': 0, '5': 0, '10': 60, '+Inf': 60 }), ...buckets('fast', { '1': 60, '5': 60, '10': 60, '+Inf': 60 })],
        promql_expr_test: [{ expr: exprOf('LLMGatewaySlowFirstToken'), eval_time: '20m', exp_samples: [{ labels: '{model="slow"}', value: 9.75 }] }],
      },
    ]);
  });

  it('saturation is per pod, against that pod\'s limit, and a pod without a limit is never saturated', async () => {
    const pod = (name: string, inflight: number, limit: number) => [
      { series: `gateway_inflight_requests{pod="${name}"}`, values: `${inflight}x10` },
      { series: `gateway_concurrency_limit{pod="${name}"}`, values: `${limit}x10` },
    ];
    await promtoolTest('saturation', [
      {
        input_series: [...pod('busy', 190, 200), ...pod('calm', 50, 200), ...pod('unlimited', 900, 0)],
        promql_expr_test: [{ expr: exprOf('LLMGatewaySaturated'), eval_time: '5m', exp_samples: [{ labels: '{pod="busy"}', value: 0.95 }] }],
      },
    ]);
  });

  it('rows dropped, spilled or waiting in Redis, and a refused reload, each fire; a quiet gateway fires none of them', async () => {
    const quiet = [
      { series: 'gateway_log_queue_dropped_total{pod="p1"}', values: '0x30' },
      { series: 'gateway_log_spilled_total{pod="p1"}', values: '0x30' },
      { series: 'gateway_log_spill_pending{pod="p1"}', values: '0x30' },
      { series: 'gateway_config_last_reload_success{pod="p1"}', values: '1x30' },
      { series: 'gateway_log_queue_depth{pod="p1"}', values: '0x30' },
    ];
    const checks = (exps: Record<string, Array<{ labels: string; value: number }>>) =>
      Object.entries(exps).map(([alert, exp_samples]) => ({ expr: exprOf(alert), eval_time: '20m', exp_samples }));
    await promtoolTest('logs-and-reload', [
      {
        input_series: quiet,
        promql_expr_test: checks({ LLMGatewayLogRowsDropped: [], LLMGatewayLogRowsSpilled: [], LLMGatewayConfigReloadFailed: [], LLMGatewayLogQueueBacklog: [] }),
      },
      {
        input_series: [
          { series: 'gateway_log_queue_dropped_total{pod="p1"}', values: '0x10 3x20' },
          { series: 'gateway_log_spilled_total{pod="p1"}', values: '0x30' },
          { series: 'gateway_log_spill_pending{pod="p1"}', values: '2x30' },
          { series: 'gateway_config_last_reload_success{pod="p1"}', values: '1x30' },
          { series: 'gateway_config_last_reload_success{pod="p2"}', values: '0x30' },
          { series: 'gateway_log_queue_depth{pod="p1"}', values: '6000x30' },
        ],
        promql_expr_test: checks({
          LLMGatewayLogRowsSpilled: [{ labels: '{}', value: 2 }],
          LLMGatewayConfigReloadFailed: [{ labels: '{}', value: 0 }],
          LLMGatewayLogQueueBacklog: [{ labels: '{}', value: 6000 }],
        }),
      },
    ]);
    // increase() extrapolates to the window's edges: a jump of 3 reads as a little more, so only "fired".
    const dropped = exprOf('LLMGatewayLogRowsDropped').replace(/ > 0\s*$/, ' > bool 0');
    await promtoolTest('dropped', [
      {
        input_series: [{ series: 'gateway_log_queue_dropped_total{pod="p1"}', values: '0x10 3x20' }],
        promql_expr_test: [{ expr: dropped, eval_time: '15m', exp_samples: [{ labels: '{}', value: 1 }] }],
      },
    ]);
  });

  it('every query of the Grafana dashboard parses, its variables filled in', async () => {
    const dashboard = JSON.parse(await readFile('deploy/grafana/llm-gateway-dashboard.json', 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets?: Array<{ expr: string }> }) => (p.targets ?? []).map((t) => t.expr));
    const filled = exprs.map((expr) =>
      expr.replaceAll('$__rate_interval', '1m').replaceAll('$__range', '1h').replaceAll('$job', '.*').replaceAll('$instance', '.*'),
    );
    for (const expr of filled) expect(expr, 'a Grafana variable this test does not fill in').not.toContain('$');
    const file = join(dir, 'dashboard.yaml');
    await writeFile(file, stringify({ groups: [{ name: 'dashboard', rules: filled.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }] }));
    const { stdout } = await run('promtool', ['check', 'rules', file]);
    expect(stdout).toContain(`SUCCESS: ${exprs.length} rules found`);
  });
});
