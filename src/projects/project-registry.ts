/**
 * The project registry: creates, lists, deletes projects and holds each project's keys,
 * settings and JWT secret in a cache that reloads when another process changed them.
 */
import { AppError } from '../errors/app-error.js';
import { hasUnpairedSurrogate, UNPAIRED_SURROGATE_SUGGESTION } from '../lib/unpaired-surrogate.js';
import { isoNow, type Clock } from '../lib/clock.js';
import { newProjectId, newRowId } from '../lib/ids.js';
import { randomBase62 } from '../lib/random.js';
import { sql } from '../query/sql-tree.js';
import { StoreError, type Executor, type StorageEngine } from '../store/types.js';
import { generateKey, matchKey, type KeyRecord, type KeyType } from './keys.js';
import type { PlatformKey } from './platform-key.js';
import { DEFAULT_SETTINGS, readSettings, type ProjectSettings } from './settings.js';
import { col, MAIL_QUEUE, PROJECT_KEYS, PROJECTS, PROJECT_SETTINGS } from '../store/system-tables.js';

export const PROJECT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{2,39}$/;

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
}

/** Everything the server needs to serve one project's requests. */
export interface ProjectState {
  readonly project: Project;
  readonly keys: readonly KeyRecord[];
  readonly settings: ProjectSettings;
  readonly jwtSecret: string;
  readonly jwtRotatedAt: string;
}

export interface CreatedProject {
  readonly project: Project;
  readonly adminKey: string;
  readonly publishableKey: string;
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Creates, finds and changes projects. One per process. */
export class ProjectRegistry {
  private readonly cache = new Map<string, ProjectState>();
  private seenVersion: number | undefined;
  // Grows whenever cached state is dropped: a load that began before a drop may have read
  // what the drop was about, so it must not put its state back (see `find`).
  private generation = 0;
  private readonly lastUsedWrites = new Map<string, number>();

  /**
   * `platformKey`, when given, is accepted wherever a project's admin key is (contract §12):
   * the registry is what every admin check already consults, so no route can forget it.
   */
  constructor(
    private readonly storage: StorageEngine,
    private readonly clock: Clock,
    private readonly platformKey?: PlatformKey,
  ) {}

  /** Creates a project with fresh keys. Throws VALIDATION_FAILED (bad name or id) or PROJECT_EXISTS. */
  async create(input: { name?: unknown; id?: unknown }): Promise<CreatedProject> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (name.length === 0 || name.length > 100) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'name: a project needs a name of 1 to 100 characters.',
        suggestion: 'Send {"name": "My app"}.',
      });
    }
    if (hasUnpairedSurrogate(name)) {
      // Callers other than the HTTP body parser (the CLI) reach here too: the name must be storable as sent.
      throw new AppError('VALIDATION_FAILED', {
        message: 'name: holds an unpaired UTF-16 surrogate, which is not a character and cannot be stored.',
        suggestion: UNPAIRED_SURROGATE_SUGGESTION,
      });
    }
    if (input.id !== undefined && (typeof input.id !== 'string' || !PROJECT_ID_PATTERN.test(input.id))) {
      throw new AppError('VALIDATION_FAILED', {
        message: 'id: a project id is 3 to 40 characters of a-z, 0-9 and "-", starting with a letter or digit.',
        suggestion: 'Send an id like "my-app", or omit id to have one generated.',
      });
    }
    const id = (input.id as string | undefined) ?? newProjectId();
    if (await this.find(id)) throw projectExists(id);
    const now = isoNow(this.clock);
    const admin = generateKey('sk');
    const publishable = generateKey('pk');
    await this.storage.createProject(id);
    try {
      await this.storage.system.transaction(async (tx) => {
        await tx.run({ kind: 'insert', table: PROJECTS.table, columns: PROJECTS.columns, rows: [[id, name, now]] });
        await this.insertKey(tx, id, 'sk', admin.prefix, admin.hash, now);
        await this.insertKey(tx, id, 'pk', publishable.prefix, publishable.hash, now);
        await tx.run({
          kind: 'insert',
          table: PROJECT_SETTINGS.table,
          columns: PROJECT_SETTINGS.columns,
          rows: [[id, DEFAULT_SETTINGS, randomBase62(64), now]],
        });
      });
    } catch (error) {
      if (error instanceof StoreError && error.kind === 'unique') throw projectExists(id);
      throw error;
    }
    return { project: { id, name, created_at: now }, adminKey: admin.value, publishableKey: publishable.value };
  }

  /** Lists projects in creation order. */
  async list(limit: number, offset: number): Promise<{ items: Project[]; total: number }> {
    const system = this.storage.system;
    const items = await system.all({
      kind: 'select',
      table: PROJECTS.table,
      columns: PROJECTS.columns,
      orderBy: [
        { column: 'created_at', descending: false },
        { column: 'id', descending: false },
      ],
      limit,
      offset,
    });
    return {
      items: items as unknown as Project[],
      total: await system.count({ kind: 'count', table: PROJECTS.table }),
    };
  }

  /** The project's state, or undefined. Served from cache unless another process changed the system database. */
  async find(id: string): Promise<ProjectState | undefined> {
    await this.dropCacheIfChangedElsewhere();
    const cached = this.cache.get(id);
    if (cached) return cached;
    if (!PROJECT_ID_PATTERN.test(id)) return undefined;
    const generation = this.generation;
    const system = this.storage.system;
    const project = (await system.first({
      kind: 'select',
      table: PROJECTS.table,
      columns: PROJECTS.columns,
      where: sql.eq('id', id),
    })) as Project | undefined;
    if (!project) return undefined;
    const keys = (await system.all({
      kind: 'select',
      table: PROJECT_KEYS.table,
      columns: PROJECT_KEYS.columns,
      where: sql.eq('project_id', id),
    })) as unknown as KeyRecord[];
    const settingsRow = await system.first({
      kind: 'select',
      table: PROJECT_SETTINGS.table,
      columns: PROJECT_SETTINGS.columns,
      where: sql.eq('project_id', id),
    });
    const state: ProjectState = Object.freeze({
      project,
      keys,
      settings: readSettings(settingsRow?.settings),
      jwtSecret: String(settingsRow?.jwt_secret),
      jwtRotatedAt: String(settingsRow?.jwt_rotated_at),
    });
    // A drop while this load ran (another request saw a newer change counter) may be about a
    // change this load missed: answer with it, but leave the cache to the next lookup.
    if (this.generation === generation) this.cache.set(id, state);
    return state;
  }

  /**
   * The project's cached state, or undefined when it is not cached: no storage access, not
   * even the change-version check. Current for a request that already called `find` or `get`.
   */
  cached(id: string): ProjectState | undefined {
    return this.cache.get(id);
  }

  /**
   * The project's cached state when it is known to be current without waiting (the storage
   * answers its change version synchronously, as SQLite does, and nothing changed since the
   * cache was filled); undefined otherwise, and then `get` must be awaited.
   */
  peek(id: string): ProjectState | undefined {
    const version = this.storage.system.externalChangeVersion();
    if (typeof version !== 'number') {
      // Awaited by `get`, which shares the read; a failure here is `get`'s to report.
      version.catch(() => undefined);
      return undefined;
    }
    if (version !== this.seenVersion) return undefined;
    return this.cache.get(id);
  }

  /** The project's state; throws PROJECT_NOT_FOUND. */
  async get(id: string): Promise<ProjectState> {
    const state = await this.find(id);
    if (!state) throw new AppError('PROJECT_NOT_FOUND', { message: `No project has the id "${id}".` });
    return state;
  }

  /** Deletes a project and all its data. Throws PROJECT_NOT_FOUND. */
  async delete(id: string): Promise<void> {
    await this.get(id);
    await this.storage.system.transaction(async (tx) => {
      await tx.run({ kind: 'delete', table: MAIL_QUEUE.table, where: sql.eq('project_id', id) });
      await tx.run({ kind: 'delete', table: PROJECTS.table, where: sql.eq('id', id) });
    });
    this.cache.delete(id);
    await this.storage.dropProject(id);
  }

  /**
   * Replaces the project's key(s) of the given types. Old keys stop working at once, or
   * after `graceSeconds`. Returns the new key values (the only time they exist in full).
   */
  async rotateKeys(
    id: string,
    types: readonly KeyType[],
    graceSeconds: number,
  ): Promise<Partial<Record<KeyType, string>>> {
    await this.get(id);
    const now = isoNow(this.clock);
    const expiresAt = new Date(this.clock.now() + graceSeconds * 1000).toISOString();
    const fresh: Partial<Record<KeyType, string>> = {};
    await this.storage.system.transaction(async (tx) => {
      for (const type of types) {
        const key = generateKey(type);
        const ofType = sql.and(sql.eq('project_id', id), sql.eq('type', type));
        if (graceSeconds > 0) {
          // Keys already in a grace period keep their earlier end; only live keys get one.
          await tx.run({
            kind: 'update',
            table: PROJECT_KEYS.table,
            set: [{ column: col(PROJECT_KEYS, 'expires_at'), value: sql.value(expiresAt, 'text') }],
            where: sql.and(ofType, sql.isNull(sql.column('expires_at'))),
          });
        } else {
          await tx.run({ kind: 'delete', table: PROJECT_KEYS.table, where: ofType });
        }
        // Keys whose grace period is over are never valid again; remove them.
        await tx.run({
          kind: 'delete',
          table: PROJECT_KEYS.table,
          where: sql.and(ofType, {
            kind: 'compare',
            op: '<=',
            left: sql.column('expires_at'),
            right: sql.value(now, 'text'),
          }),
        });
        await this.insertKey(tx, id, type, key.prefix, key.hash, now);
        fresh[type] = key.value;
      }
    });
    this.cache.delete(id);
    return fresh;
  }

  /** Stores new settings for the project. */
  async saveSettings(id: string, settings: ProjectSettings): Promise<void> {
    await this.storage.system.run({
      kind: 'update',
      table: PROJECT_SETTINGS.table,
      set: [{ column: col(PROJECT_SETTINGS, 'settings'), value: sql.value(settings, 'json') }],
      where: sql.eq('project_id', id),
    });
    this.cache.delete(id);
  }

  /** Replaces the JWT secret: every access token signed before fails. Returns the rotation time. */
  async rotateJwtSecret(id: string): Promise<string> {
    const now = isoNow(this.clock);
    await this.storage.system.run({
      kind: 'update',
      table: PROJECT_SETTINGS.table,
      set: [
        { column: col(PROJECT_SETTINGS, 'jwt_secret'), value: sql.value(randomBase62(64), 'text') },
        { column: col(PROJECT_SETTINGS, 'jwt_rotated_at'), value: sql.value(now, 'text') },
      ],
      where: sql.eq('project_id', id),
    });
    this.cache.delete(id);
    return now;
  }

  /** The project's key the presented value is (grace periods judged by this registry's clock), or undefined. */
  matchKey(state: ProjectState, presented: string): KeyRecord | undefined {
    return matchKey(state.keys, presented, isoNow(this.clock));
  }

  /**
   * The project's key with this id while it still works (a rotated key until its grace period
   * ends, judged by this registry's clock), or undefined: what a dashboard token made from it
   * may still do.
   */
  liveKey(state: ProjectState, keyId: string): KeyRecord | undefined {
    const now = isoNow(this.clock);
    return state.keys.find((key) => key.id === keyId && (key.expires_at === null || key.expires_at > now));
  }

  /** True when the presented value is the platform key (constant time); false without one. */
  isPlatformKey(presented: string): boolean {
    return this.platformKey?.matches(presented) ?? false;
  }

  /** Records that a key was used, at most once a minute per key (a write per request would cost too much). */
  noteKeyUsed(key: KeyRecord): void {
    const now = this.clock.now();
    if (now - (this.lastUsedWrites.get(key.id) ?? 0) < LAST_USED_WRITE_INTERVAL_MS) return;
    if (this.lastUsedWrites.size > 10_000) this.lastUsedWrites.clear();
    this.lastUsedWrites.set(key.id, now);
    this.storage.system
      .run({
        kind: 'update',
        table: PROJECT_KEYS.table,
        set: [{ column: col(PROJECT_KEYS, 'last_used_at'), value: sql.value(new Date(now).toISOString(), 'text') }],
        where: sql.eq('id', key.id),
      })
      .catch(() => undefined); // bookkeeping only: a failed write must not fail the request
  }

  /** Forgets cached state of one project (after a change made elsewhere in this process). */
  invalidate(id: string): void {
    this.generation++;
    this.cache.delete(id);
  }

  private async dropCacheIfChangedElsewhere(): Promise<void> {
    const version = await this.storage.system.externalChangeVersion();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.generation++;
      this.cache.clear();
    }
  }

  private insertKey(
    tx: Executor,
    projectId: string,
    type: KeyType,
    prefix: string,
    hash: string,
    now: string,
  ): Promise<number> {
    return tx.run({
      kind: 'insert',
      table: PROJECT_KEYS.table,
      columns: PROJECT_KEYS.columns,
      rows: [[newRowId(), projectId, type, prefix, hash, now, null, null]],
    });
  }
}

function projectExists(id: string): AppError {
  return new AppError('PROJECT_EXISTS', { message: `A project with the id "${id}" already exists.` });
}
