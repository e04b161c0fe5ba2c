/**
 * Policy snapshots: a policy's whole state as bytes, and the policy rebuilt from them. A restored
 * policy continues bit for bit as the original would have: the same actions, and the same snapshot
 * bytes after the same rounds.
 *
 * Bytes (little-endian): "EOFDSNAP" · u32 format · u32 header length · header (UTF-8 JSON) · the
 * arrays' contents, each 8-aligned · SHA-256 of everything before it (32 bytes). The header names the
 * policy, the spec it was built from, the eofd version and commit that wrote it, and the policy's
 * object graph: each object's fields in declaration order, numbers exactly (NaN, ±∞ and −0 tagged),
 * typed arrays by index into the array table, so that fields sharing an array share it again. Which
 * memory an array lived in is not saved (kernels give the same bits in any).
 *
 * A module policy (policies/external) is saved as the object its module's `create` returned, with the
 * module's path and SHA-256 and the params it was given; restoring loads the same module (its bytes
 * checked) and creates it afresh. A process policy cannot be saved: its state is another process's.
 *
 * Restoring builds the policy afresh from its spec (createPolicy) and writes the saved state into it,
 * field by field, in place: closures its constructor made and its WebAssembly memories stay the new
 * policy's own, and arrays are copied into the new policy's arrays at the same place (an array that
 * has since grown is allocated anew in the same memory). A field or class the new policy does not have
 * is refused: the snapshot is another code's.
 */
import { createHash } from 'node:crypto';
import { gitCommit, packageInfo } from '../base/package-root.js';
import { type Home, homeOf, isHome, isWorkspace } from '../linalg/simd.js';
import { FunctionUniformStream, RandomStream, streamBehind, uniformOf, UniformStream } from '../random/stream.js';
import { createModulePolicy, loadPolicyModule, ModulePolicy, moduleSha256 } from './external/module-policy.js';
import { isProcessPolicy } from './external/process-policy.js';
import type { Policy } from './policy.js';
import { createPolicy, policyDescriptor, policyOrigin } from './registry.js';
import type { PolicySpec } from './spec.js';

/** The first bytes of every snapshot. */
const MAGIC = 'EOFDSNAP';
/** The layout of the bytes; a reader refuses another. */
export const SNAPSHOT_FORMAT = 1;
const DIGEST_BYTES = 32;
const PREFIX_BYTES = MAGIC.length + 8;

/** What a snapshot's header says about it. */
export interface SnapshotInfo {
  format: number;
  /** The registry name (createPolicy's first argument). */
  policy: string;
  /** The spec it was built from, as JSON (reward as a list; the uniform stream is part of the state). */
  spec: Record<string, unknown>;
  /** The eofd version and git commit (null outside a checkout) that wrote it. */
  eofd: { version: string; commit: string | null };
  /** A module policy's module (absolute path, SHA-256 of its bytes) and the params `create` was given; `policy` is then its label. */
  module?: { file: string; sha256: string; params: Record<string, unknown> };
}

/** A snapshot that cannot be read or restored here: names what is wrong. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array | Uint8ClampedArray;
const TYPED_ARRAYS: Record<string, new (length: number) => TypedArray> = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
};

/** An encoded value: JSON scalars as themselves, everything else as a tagged object. */
type Node = number | string | boolean | null | { [tag: string]: unknown };

/** An array of the table: its type, length and where its bytes start. */
interface ArrayEntry {
  type: string;
  length: number;
  offset: number;
}

interface Header extends SnapshotInfo {
  root: Node;
  arrays: ArrayEntry[];
}

/** The policy's full state as bytes; the policy must have come from createPolicy (or restorePolicy). */
export function snapshotPolicy(policy: Policy): Uint8Array {
  if (isProcessPolicy(policy)) throw new SnapshotError(`${policy.name} runs in another process, whose state eofd cannot save: it has no checkpoints (a stopped unit of it starts again from round 1)`);
  const module = policy instanceof ModulePolicy ? policy.origin : undefined;
  const origin = module === undefined ? policyOrigin(policy) : { name: policy.name, spec: module.spec };
  if (origin === undefined) throw new SnapshotError(`${policy.name}: only a policy made by createPolicy or restorePolicy can be snapshotted (its spec is needed to rebuild it)`);
  const encoder = new Encoder();
  // A module policy: the object its module's create returned (the wrapper is rebuilt around it).
  const root = encoder.encode(module === undefined ? policy : (policy as ModulePolicy).inner, policy.name);
  const draws = module === undefined ? policyDescriptor(origin.name).needsRandomStream : loadPolicyModule(module.module).needsRandomStream === true;
  if (draws && encoder.streams === 0) {
    throw new SnapshotError(`${origin.name} draws from spec.uniform, whose position a bare function cannot save: build its spec with uniform: uniformOf(new RandomStream(seed))`);
  }
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    policy: origin.name,
    spec: specJson(origin.spec),
    eofd: codeVersion(),
    ...(module === undefined ? {} : { module: { file: module.module, sha256: module.sha256, params: { ...module.params } } }),
    root,
    arrays: encoder.arrays,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = align8(PREFIX_BYTES + json.length);
  const total = start + encoder.dataBytes + DIGEST_BYTES;
  const bytes = new Uint8Array(total);
  bytes.set(Buffer.from(MAGIC, 'latin1'), 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(MAGIC.length, SNAPSHOT_FORMAT, true);
  view.setUint32(MAGIC.length + 4, json.length, true);
  bytes.set(json, PREFIX_BYTES);
  for (const [i, entry] of encoder.arrays.entries()) bytes.set(encoder.contents[i] as Uint8Array, start + entry.offset);
  bytes.set(createHash('sha256').update(bytes.subarray(0, total - DIGEST_BYTES)).digest(), total - DIGEST_BYTES);
  return bytes;
}

/** The header of a snapshot, checked (magic, format, checksum); throws a SnapshotError. */
export function snapshotInfo(bytes: Uint8Array): SnapshotInfo {
  const { format, policy, spec, eofd, module } = readHeader(bytes).header;
  return { format, policy, spec, eofd, ...(module === undefined ? {} : { module }) };
}

/**
 * The policy a snapshot saved, ready to continue where it stopped. Refuses (SnapshotError) a damaged
 * snapshot and one written by another eofd version or commit.
 */
export function restorePolicy(bytes: Uint8Array): Policy {
  const { header, data } = readHeader(bytes);
  const here = codeVersion();
  if (header.eofd.version !== here.version || (header.eofd.commit !== null && here.commit !== null && header.eofd.commit !== here.commit)) {
    const of = (v: SnapshotInfo['eofd']): string => `eofd ${v.version}${v.commit === null ? '' : ` (commit ${v.commit.slice(0, 12)})`}`;
    throw new SnapshotError(`the snapshot was written by ${of(header.eofd)} and this is ${of(here)}: restore it with the code that wrote it`);
  }
  const { module } = header;
  if (module !== undefined) {
    let sha256: string;
    try {
      sha256 = moduleSha256(module.file);
    } catch (error) {
      throw new SnapshotError(`the snapshot's module ${module.file} cannot be read: ${(error as Error).message}`);
    }
    if (sha256 !== module.sha256) throw new SnapshotError(`the snapshot's module ${module.file} has changed since (its SHA-256 differs): restore it with the module that wrote it`);
    const spec = specFromJson(header.spec, loadPolicyModule(module.file).needsRandomStream === true);
    const policy = createModulePolicy(module.file, spec, module.params, header.policy);
    new Decoder(header.arrays, data, policy.inner).decode(header.root, policy.inner, header.policy);
    return policy;
  }
  const spec = specFromJson(header.spec, policyDescriptor(header.policy).needsRandomStream);
  const policy = createPolicy(header.policy, spec);
  new Decoder(header.arrays, data, policy).decode(header.root, policy, header.policy);
  return policy;
}

function codeVersion(): SnapshotInfo['eofd'] {
  return { version: packageInfo().version, commit: gitCommit() };
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

function readHeader(bytes: Uint8Array): { header: Header; data: Uint8Array } {
  if (!(bytes instanceof Uint8Array) || bytes.length < PREFIX_BYTES + DIGEST_BYTES || Buffer.from(bytes.subarray(0, MAGIC.length)).toString('latin1') !== MAGIC) {
    throw new SnapshotError('not a policy snapshot (no EOFDSNAP header)');
  }
  const digest = createHash('sha256').update(bytes.subarray(0, bytes.length - DIGEST_BYTES)).digest();
  if (!digest.equals(bytes.subarray(bytes.length - DIGEST_BYTES))) throw new SnapshotError('the snapshot is damaged: its SHA-256 does not match its contents');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(MAGIC.length, true);
  if (format !== SNAPSHOT_FORMAT) throw new SnapshotError(`snapshot format ${format}; this eofd reads format ${SNAPSHOT_FORMAT}`);
  const length = view.getUint32(MAGIC.length + 4, true);
  const header = JSON.parse(Buffer.from(bytes.subarray(PREFIX_BYTES, PREFIX_BYTES + length)).toString('utf8')) as Header;
  const start = align8(PREFIX_BYTES + length);
  return { header, data: bytes.subarray(start, bytes.length - DIGEST_BYTES) };
}

/** The spec as JSON: reward as a list, the uniform function left out (the stream is in the state). */
function specJson(spec: PolicySpec): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'uniform') continue;
    json[key] = value instanceof Float64Array ? Array.from(value) : value;
  }
  return json;
}

function specFromJson(json: Record<string, unknown>, draws: boolean): PolicySpec {
  const spec = { ...json, reward: Float64Array.from(json.reward as number[]) } as unknown as PolicySpec;
  // A stand-in stream: the saved stream's position replaces its own.
  if (draws) spec.uniform = uniformOf(new RandomStream('snapshot'));
  return spec;
}

/** Numbers JSON cannot spell. */
function encodeNumber(value: number): Node {
  if (Number.isFinite(value) && !Object.is(value, -0)) return value;
  return { num: Object.is(value, -0) ? '-0' : String(value) };
}

function decodeNumber(text: unknown): number {
  if (text === '-0') return -0;
  if (text === 'NaN') return NaN;
  if (text === 'Infinity') return Infinity;
  if (text === '-Infinity') return -Infinity;
  throw new SnapshotError(`not a number: ${JSON.stringify(text)}`);
}

/** Objects whose class a snapshot cannot hold. */
const REFUSED = [Map, Set, WeakMap, WeakSet, Date, Promise, DataView, ArrayBuffer];

/** Walks a policy's object graph into nodes and an array table. */
class Encoder {
  readonly arrays: ArrayEntry[] = [];
  readonly contents: Uint8Array[] = [];
  dataBytes = 0;
  /** Uniform streams found (a policy that draws must have one). */
  streams = 0;
  private readonly arrayIds = new Map<TypedArray, number>();
  private readonly objectIds = new Map<object, number>();

  encode(value: unknown, path: string): Node {
    switch (typeof value) {
      case 'number':
        return encodeNumber(value);
      case 'string':
      case 'boolean':
        return value;
      case 'undefined':
        return { undef: 1 };
      case 'function':
        return this.encodeFunction(value as (...args: unknown[]) => unknown, path);
      case 'object':
        return value === null ? null : this.encodeObject(value, path);
      default:
        throw new SnapshotError(`${path}: a ${typeof value} cannot be snapshotted`);
    }
  }

  private encodeFunction(fn: (...args: unknown[]) => unknown, path: string): Node {
    const stream = streamBehind(fn as () => number);
    if (stream !== undefined) return { uniform: this.encode(stream, `${path}[stream]`) };
    // A closure the constructor made (restored as the new policy's own).
    return { fn: 1 };
  }

  private encodeObject(value: object, path: string): Node {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return { arr: this.arrayId(value as TypedArray) };
    // Where arrays are allocated (the backend), not state: the restoring process's own.
    if (isWorkspace(value)) return { workspace: 1 };
    if (isHome(value)) return { home: 1 };
    const refused = REFUSED.find((type) => value instanceof type);
    if (refused !== undefined) throw new SnapshotError(`${path}: a ${refused.name} cannot be snapshotted`);
    const seen = this.objectIds.get(value);
    if (seen !== undefined) return { ref: seen };
    const id = this.objectIds.size;
    this.objectIds.set(value, id);
    if (Array.isArray(value)) return { id, list: value.map((item, i) => this.encode(item, `${path}[${i}]`)) };
    if (value instanceof FunctionUniformStream && streamBehind((value as unknown as { source: () => number }).source) === undefined) {
      throw new SnapshotError(`${path}: draws from a bare function, whose position cannot be saved: build the spec with uniform: uniformOf(new RandomStream(seed))`);
    }
    if (value instanceof UniformStream) this.streams++;
    const fields: Record<string, Node> = {};
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      fields[key] = value instanceof RandomStream && key === 'generator' ? { arc4: value.state() } : this.encode(field, `${path}.${key}`);
    }
    return { id, cls: value.constructor?.name ?? 'Object', fields };
  }

  private arrayId(array: TypedArray): number {
    const seen = this.arrayIds.get(array);
    if (seen !== undefined) return seen;
    const id = this.arrays.length;
    this.arrayIds.set(array, id);
    this.arrays.push({ type: array.constructor.name, length: array.length, offset: this.dataBytes });
    this.contents.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength).slice());
    this.dataBytes += align8(array.byteLength);
    return id;
  }
}

/** Writes a snapshot's graph into a freshly built policy of the same spec, in place. */
class Decoder {
  private readonly restoredArrays = new Map<number, TypedArray>();
  private readonly restoredObjects = new Map<number, object>();
  /** Live arrays and objects already given a saved one (never given two). */
  private readonly claimed = new Set<object>();
  /** The new policy's first WebAssembly memory (where an array it lacks is allocated), if it has one. */
  private home: Home | undefined;
  /** The new policy's classes by name (an object the new policy lacks is made from these). */
  private readonly prototypes = new Map<string, object>();

  constructor(
    private readonly arrays: readonly ArrayEntry[],
    private readonly data: Uint8Array,
    live: object,
  ) {
    this.survey(live, new Set());
  }

  /** Records the live graph's classes and its first WebAssembly memory. */
  private survey(value: unknown, seen: Set<object>): void {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (isHome(value)) {
      this.home ??= value;
      return;
    }
    if (ArrayBuffer.isView(value)) {
      if (value instanceof Float64Array) this.home ??= homeOf(value);
      return;
    }
    if (!Array.isArray(value) && value.constructor !== undefined) this.prototypes.set(value.constructor.name, Object.getPrototypeOf(value) as object);
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      const stream = typeof field === 'function' ? streamBehind(field as () => number) : undefined;
      this.survey(stream ?? field, seen);
    }
  }

  decode(node: Node, live: unknown, path: string): unknown {
    if (node === null || typeof node !== 'object') return node;
    if ('num' in node) return decodeNumber(node.num);
    if ('undef' in node) return undefined;
    if ('fn' in node) {
      if (typeof live !== 'function') throw new SnapshotError(`${path}: the snapshot has a function here and this eofd's policy has none`);
      return live;
    }
    if ('uniform' in node) {
      const stream = typeof live === 'function' ? streamBehind(live as () => number) : undefined;
      if (stream === undefined) throw new SnapshotError(`${path}: the snapshot has a uniform stream here and this eofd's policy has none`);
      this.decode(node.uniform as Node, stream, `${path}[stream]`);
      return live;
    }
    if ('workspace' in node || 'home' in node) {
      const [kind, is] = 'workspace' in node ? ['Workspace', isWorkspace] : ['Home', isHome];
      if (!is(live)) throw new SnapshotError(`${path}: the snapshot has a ${kind} here and this eofd's policy has none`);
      return live;
    }
    if ('arr' in node) return this.decodeArray(node.arr as number, live, path);
    if ('ref' in node) {
      const object = this.restoredObjects.get(node.ref as number);
      if (object === undefined) throw new SnapshotError(`${path}: a reference to an object not yet restored`);
      return object;
    }
    if ('list' in node) {
      const target = Array.isArray(live) && !this.claimed.has(live) ? (live as unknown[]) : [];
      this.claim(node.id as number, target);
      const items = node.list as Node[];
      target.length = items.length;
      for (const [i, item] of items.entries()) target[i] = this.decode(item, target[i], `${path}[${i}]`);
      return target;
    }
    if ('cls' in node) return this.decodeObject(node, live, path);
    throw new SnapshotError(`${path}: unreadable node ${JSON.stringify(node).slice(0, 80)}`);
  }

  private claim(id: number, target: object): void {
    this.claimed.add(target);
    this.restoredObjects.set(id, target);
  }

  private decodeObject(node: { [tag: string]: unknown }, live: unknown, path: string): object {
    const cls = node.cls as string;
    let target: object;
    if (typeof live === 'object' && live !== null && live.constructor?.name === cls && !this.claimed.has(live)) target = live;
    else {
      const prototype = this.prototypes.get(cls);
      if (prototype === undefined) throw new SnapshotError(`${path}: this eofd's policy has no ${cls} (the snapshot is another code's)`);
      target = Object.create(prototype) as object;
    }
    this.claim(node.id as number, target);
    const fields = node.fields as Record<string, Node>;
    const record = target as Record<string, unknown>;
    if (target === live) {
      const missing = Object.keys(fields).find((key) => !(key in record)) ?? Object.keys(record).find((key) => !(key in fields));
      if (missing !== undefined) throw new SnapshotError(`${path}.${missing}: the snapshot's ${cls} and this eofd's differ (the snapshot is another code's)`);
    }
    for (const [key, field] of Object.entries(fields)) {
      if (target instanceof RandomStream && key === 'generator') target.restoreState((field as { arc4: Parameters<RandomStream['restoreState']>[0] }).arc4);
      else record[key] = this.decode(field, record[key], `${path}.${key}`);
    }
    return target;
  }

  private decodeArray(id: number, live: unknown, path: string): TypedArray {
    const restored = this.restoredArrays.get(id);
    if (restored !== undefined) return restored;
    const entry = this.arrays[id];
    const Type = entry === undefined ? undefined : TYPED_ARRAYS[entry.type];
    if (entry === undefined || Type === undefined) throw new SnapshotError(`${path}: array ${id} is not in the snapshot's table`);
    let target: TypedArray;
    if (live instanceof Type && live.length === entry.length && !this.claimed.has(live)) target = live;
    else {
      // Not in this policy yet (an adaptive sketch grew): in the memory of the array it replaces, else the policy's.
      const home = (live instanceof Float64Array ? homeOf(live) : undefined) ?? this.home;
      target = home !== undefined && Type === Float64Array ? home.allocate(entry.length) : new Type(entry.length);
    }
    this.claimed.add(target);
    this.restoredArrays.set(id, target);
    new Uint8Array(target.buffer, target.byteOffset, target.byteLength).set(this.data.subarray(entry.offset, entry.offset + target.byteLength));
    return target;
  }
}
