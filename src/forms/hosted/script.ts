/** The hosted page's one script (the proof-of-work solver), read once at start and served with its content hash in the URL. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../config/package-root.ts';

const body = readFileSync(path.join(packageRoot(), 'src', 'forms', 'hosted', 'assets', 'bot-check.js'));

/** The solver script's bytes. */
export const BOT_SCRIPT = body;
/** The path the solver script is served at. */
export const BOT_SCRIPT_PATH = '/f/assets/bot-check.js';
/** The solver script's URL, with its content hash so browsers may keep it. */
export const BOT_SCRIPT_URL = `${BOT_SCRIPT_PATH}?v=${createHash('sha256').update(body).digest('hex').slice(0, 12)}`;
