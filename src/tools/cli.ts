import { parseArgs } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { loadConfig } from '../config';
import { requirePayloadKeys } from '../temporal/payloadKeys';
import { printFailure } from '../config/runMain';
import { serviceDataConverter } from '../temporal/payloadCodec';
import { connectionOptions } from '../temporal/connection';

/**
 * What the run tools (`npm run replay`, `npm run retry`) share: their arguments, a client
 * connected as the API and the workers are (the same settings, src/config/index.ts), and plain
 * words and an exit code for whatever goes wrong.
 */

export interface ToolArgs {
  workflowId: string;
  /** A run of the workflow id other than its latest. */
  runId?: string;
  force: boolean;
}

/** A failure the tool explains in its own words, without a stack. */
export class ToolError extends Error {}

export function readToolArgs(argv: string[], usage: string, withForce = false): ToolArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { run: { type: 'string' }, ...(withForce ? { force: { type: 'boolean' as const } } : {}) },
      allowPositionals: true,
    });
  } catch (err) {
    throw new ToolError(`${(err as Error).message}\nusage: ${usage}`);
  }
  const [workflowId, ...rest] = parsed.positionals;
  if (!workflowId || rest.length > 0) throw new ToolError(`usage: ${usage}`);
  return { workflowId, runId: parsed.values.run, force: parsed.values.force === true };
}

/**
 * Reads the arguments, connects, runs the tool and closes; prints what went wrong. The exit code
 * is 0 when the tool says it succeeded, else 1.
 */
export async function runTool<A>(
  readArgs: () => A,
  tool: (client: Client, args: A) => Promise<boolean>,
): Promise<void> {
  let connection: Connection | undefined;
  try {
    const args = readArgs();
    const config = loadConfig();
    const dataConverter = serviceDataConverter(requirePayloadKeys(config.codec));
    connection = await Connection.connect(connectionOptions(config.temporal)).catch((err: Error) => {
      throw new ToolError(`cannot reach Temporal at ${config.temporal.address}: ${err.message}`);
    });
    const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
    process.exitCode = (await tool(client, args)) ? 0 : 1;
  } catch (err) {
    process.exitCode = 1;
    if (err instanceof ToolError) console.error(err.message);
    else if (err instanceof WorkflowNotFoundError) console.error(`no such run: ${err.message}`);
    else printFailure(err);
  } finally {
    await connection?.close();
  }
}
