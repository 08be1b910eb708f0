/**
 * The app's Node entry: `node app.mjs '<jobs JSON>'` runs the scenario for each job and prints
 * the reports as JSON on stdout.
 */
import { parseJobs, runAll } from './scenario.js';

const jobs = parseJobs(process.argv[2] ?? '[]');
process.stdout.write(`${JSON.stringify(await runAll(jobs))}\n`);
