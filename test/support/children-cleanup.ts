import { afterAll } from 'vitest';
import { stopAllChildren } from './child-process.js';

// A setup file of every test file: whatever processes a file started are gone before the next
// file runs, even when a test failed or timed out half-way.
afterAll(stopAllChildren);
