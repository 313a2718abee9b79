import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';

/** Owner-only modes for everything the service keeps on disk: health data, keys, credential hashes. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Make sure a data directory exists. One this call creates (with any missing parents) is
 * owner-only (0700); an existing one is left as the operator set it up, since the files in it are
 * owner-only anyway.
 */
export function ensurePrivateDirectory(path: string): void {
  if (existsSync(path)) return;
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
}

/** Tighten an existing file to owner-only (0600); files written by earlier versions included. */
export function restrictToOwner(path: string): void {
  if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Create a file owner-only before anything else opens it (or tighten it when it exists). SQLite
 * gives its -wal and -shm files the mode of the database file, so this covers them too.
 */
export function ensurePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}
