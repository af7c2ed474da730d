#!/usr/bin/env node
// The `sealpost` command. The TypeScript sources run through tsx's loader, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/bin/sealpost.ts');
