/**
 * The WebAssembly SIMD128 backend of the kernels in blas.ts. A `Workspace` hands out Float64Arrays that
 * live in one WebAssembly memory of its own (a policy allocates its streamed state there for its whole
 * life); a kernel whose output lies in such a memory runs as WebAssembly over it, copying nothing but
 * small inputs that live elsewhere (an action's features). The kernels compute every element with the
 * same operations in the same order as the TypeScript ones, so the backend changes speed, never a bit of
 * a result (scripts/simd-kernels.mjs; test/linalg/simd.test.ts).
 *
 * The memory is shared (SharedArrayBuffer-backed) so that it can grow without detaching the views handed
 * out before: a grown memory keeps its address range, and old views keep their old length.
 *
 * Address space: a memory's maximum is what its owner sized it for plus growth headroom (`maximumPages`),
 * not wasm32's 4 GiB. Under Node's default WebAssembly trap handler V8 reserves about 10 GiB of address
 * space for every memory whatever its maximum (measured on Node 20, x64 Linux), so under `ulimit -v`
 * (cluster nodes, containers) a memory may not be had at all: a workspace that cannot get one, or whose
 * need exceeds 4 GiB, keeps its arrays in ordinary memory and its kernels run as TypeScript (the same
 * bits, slower), with a one-line note (`workspacePlan`). An array asked for once the memory cannot grow
 * is an ordinary Float64Array too.
 */
import { SIMD_MODULE_BASE64 } from './simd-module.js';

/** The part of the WebAssembly JS API used here (the project's TypeScript libraries do not declare it). */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: object);
    readonly exports: object;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum: number; shared: boolean });
    readonly buffer: SharedArrayBuffer;
    grow(pages: number): number;
  }
}

/** Where kernels run: 'wasm' (SIMD128, the default where WebAssembly SIMD exists) or 'js' (TypeScript). */
export type Backend = 'js' | 'wasm';
export const BACKENDS: readonly Backend[] = ['js', 'wasm'];

/** The module's exports; pointers are byte addresses, leading dimensions in elements. */
interface Kernels {
  dot(n: number, x: number, y: number): number;
  gemv(m: number, n: number, a: number, lda: number, x: number, y: number): void;
  gemvT(m: number, n: number, a: number, lda: number, x: number, y: number): void;
  axpy(n: number, alpha: number, x: number, y: number): void;
  ger(m: number, n: number, alpha: number, x: number, incx: number, y: number, a: number, lda: number): void;
  gemmNNUpdate(m: number, n: number, k: number, alpha: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number, work: number, nc: number): void;
  gemmNTPanel(m: number, n: number, len: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number, accumulate: number, work: number, nc: number, kc: number): void;
  rotateRows(n: number, w: number, l: number, m: number, rc: number, rs: number): void;
  accumulate(n: number, w: number, d: number, e: number): void;
  zero(m: number, n: number, c: number, ldc: number): void;
  symvLower(m: number, a: number, lda: number, x: number, y: number): void;
  qlSweep(n: number, w: number, d: number, e: number, l: number, m: number): void;
  reduceUnblocked(n: number, w: number, d: number, e: number): void;
}

const PAGE_BYTES = 65536;
/** The module's memory limit (scripts/simd-kernels.mjs MAX_PAGES): wasm32's 4 GiB. */
const MAX_PAGES = 65536;
/** The most bytes one WebAssembly memory can hold (wasm32). */
export const WASM_MEMORY_LIMIT = MAX_PAGES * PAGE_BYTES;
/** Growth headroom of a workspace beyond its up-front size: ×GROWTH_FACTOR, and at least GROWTH_MIN_BYTES. */
const GROWTH_FACTOR = 4;
const GROWTH_MIN_BYTES = 64 * 1024 * 1024;
/** Multiply-adds below which a kernel call stays in TypeScript (the call costs more than it saves). */
const MIN_WORK = 64;

let compiled: WebAssembly.Module | null | undefined;

function simdModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(SIMD_MODULE_BASE64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Whether this runtime compiles the SIMD module (WebAssembly SIMD and shared memory: Node ≥ 16.4). */
export function wasmAvailable(): boolean {
  return simdModule() !== null;
}

let selected: Backend | undefined;

/** The environment variable that picks the backend of a whole process and its worker threads. */
const BACKEND_VARIABLE = 'EOFD_BACKEND';

/** The backend new workspaces use: setBackend's choice, else $EOFD_BACKEND, else wasm where available. */
export function backend(): Backend {
  if (selected === undefined) {
    const asked = process.env[BACKEND_VARIABLE];
    if (asked === undefined || asked === '') selected = wasmAvailable() ? 'wasm' : 'js';
    else if (asked === 'js' || asked === 'wasm') setBackend(asked);
    else throw new Error(`${BACKEND_VARIABLE} must be ${BACKENDS.join(' or ')}, got "${asked}"`);
  }
  return selected!;
}

/** Throws if `choice` is 'wasm' and this runtime cannot run it. */
function checkAvailable(choice: Backend): void {
  if (choice === 'wasm' && !wasmAvailable()) throw new Error('the wasm backend needs WebAssembly SIMD and shared memory, which this runtime lacks');
}

/** Chooses the backend of workspaces made from now on (existing ones keep theirs). */
export function setBackend(choice: Backend): void {
  checkAvailable(choice);
  selected = choice;
}

/** Runs `body` with `choice` as the backend, then restores the previous one. */
export function withBackend<T>(choice: Backend, body: () => T): T {
  const previous = backend();
  setBackend(choice);
  try {
    return body();
  } finally {
    selected = previous;
  }
}

/**
 * The home of every array a workspace handed out. Keyed by the array, not its buffer: V8 may give two
 * views of one shared memory two different SharedArrayBuffer objects.
 */
const homes = new WeakMap<Float64Array, Home>();

/**
 * Brands that tell a Home or Workspace of any copy of eofd (a module policy that imports the package
 * gets its own copy when the CLI runs from its bundle): what a snapshot saves as "the restoring
 * process's own", whichever copy made it.
 */
const HOME_BRAND = Symbol.for('eofd.linalg.Home');
const WORKSPACE_BRAND = Symbol.for('eofd.linalg.Workspace');

function branded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** Whether `value` is a Home (of this or another copy of eofd). */
export function isHome(value: unknown): value is Home {
  return branded(value, HOME_BRAND);
}

/** Whether `value` is a Workspace (of this or another copy of eofd). */
export function isWorkspace(value: unknown): value is Workspace {
  return branded(value, WORKSPACE_BRAND);
}

/** One WebAssembly memory and the kernels instantiated over it. */
export class Home {
  declare readonly [HOME_BRAND]: true;
  readonly kernels: Kernels;
  private readonly memory: WebAssembly.Memory;
  /** Pages the memory may grow to. */
  private readonly maximum: number;
  /** Bytes handed out. */
  private top = 0;
  /** Copies of inputs that live outside this memory, for the current call. */
  private staging: Float64Array = new Float64Array(0);
  private stagingUsed = 0;

  /** Throws (a RangeError from V8) when the memory cannot be reserved; `Workspace` falls back then. */
  constructor(bytes: number) {
    const { initial, maximum } = maximumPages(bytes);
    this.maximum = maximum;
    this.memory = new WebAssembly.Memory({ initial, maximum, shared: true });
    const instance = new WebAssembly.Instance(simdModule()!, { env: { memory: this.memory } });
    this.kernels = instance.exports as unknown as Kernels;
  }

  /**
   * A zeroed array of `length` doubles in this memory, 16-byte aligned; grows the memory if needed. Past
   * the maximum, or when the system refuses the growth, an ordinary Float64Array (its kernels then run
   * as TypeScript).
   */
  allocate(length: number): Float64Array {
    return this.allocateHere(length) ?? new Float64Array(length);
  }

  /** As `allocate`, or null when the memory cannot hold `length` more doubles. */
  private allocateHere(length: number): Float64Array | null {
    const start = Math.ceil(this.top / 16) * 16;
    const end = start + 8 * length;
    if (end > this.memory.buffer.byteLength) {
      const needed = Math.ceil((end - this.memory.buffer.byteLength) / PAGE_BYTES);
      const current = this.memory.buffer.byteLength / PAGE_BYTES;
      if (current + needed > this.maximum) return null;
      try {
        this.memory.grow(Math.min(this.maximum - current, Math.max(needed, current)));
      } catch {
        try {
          this.memory.grow(needed);
        } catch {
          return null;
        }
      }
    }
    this.top = end;
    const array = new Float64Array(this.memory.buffer, start, length);
    homes.set(array, this);
    return array;
  }

  /** Starts a kernel call: staged copies of the previous call are released. */
  begin(): this {
    this.stagingUsed = 0;
    return this;
  }

  /** Byte address of element `offset` of an array in this memory. */
  address(array: Float64Array, offset: number): number {
    return array.byteOffset + 8 * offset;
  }

  /**
   * Byte address of `length` elements of `array` from `offset` for a kernel to read: the array itself if
   * it lives here, else a copy in the staging area (valid until the next `begin`).
   */
  input(array: Float64Array, offset: number, length: number): number {
    if (homes.get(array) === this) return array.byteOffset + 8 * offset;
    const start = this.stage(length);
    if (start === null) throw new RangeError(`a workspace's WebAssembly memory cannot grow to stage ${length} doubles`);
    const staging = this.staging;
    if (offset === 0 && length === array.length) staging.set(array, start);
    else for (let i = 0; i < length; i++) staging[start + i] = array[offset + i];
    return staging.byteOffset + 8 * start;
  }

  /**
   * Byte address of `length` doubles of scratch for a kernel (packed panels), 16-byte aligned, valid until
   * the next `begin`; null when the memory cannot grow to hold them (the caller runs as TypeScript).
   */
  scratch(length: number): number | null {
    const start = this.stage(length);
    return start === null ? null : this.staging.byteOffset + 8 * start;
  }

  /** Index in the staging area of `length` doubles reserved for the current call (growing the area if needed), or null. */
  private stage(length: number): number | null {
    const start = this.stagingUsed;
    if (start + length > this.staging.length) {
      const staging = this.allocateHere(Math.max(2 * this.staging.length, start + length + 1024));
      if (staging === null) return null;
      // Earlier stagings of this call stay valid in the old area (a memory's arrays are never freed).
      this.staging = staging;
    }
    this.stagingUsed = start + length + (length & 1);
    return start;
  }
}

/** The home of an array a workspace handed out, if any (a subarray of one has none). */
export function homeOf(array: Float64Array): Home | undefined {
  return homes.get(array);
}

/**
 * The home where a kernel writing `output` runs, or null for TypeScript: outputs outside a workspace
 * memory, and calls of fewer than MIN_WORK multiply-adds, stay in TypeScript.
 */
export function kernelHome(output: Float64Array, work: number): Home | null {
  if (work < MIN_WORK) return null;
  const home = homes.get(output);
  return home === undefined ? null : home.begin();
}

/** The home where `dot` of two inputs of length n runs (the first that lives in one), or null. */
export function inputHome(x: Float64Array, y: Float64Array, n: number): Home | null {
  if (n < MIN_WORK) return null;
  const home = homes.get(x) ?? homes.get(y);
  return home === undefined ? null : home.begin();
}

/** Extent in elements of a rows × cols block with leading dimension ld (0 when empty). */
export function extent(rows: number, cols: number, ld: number): number {
  return rows > 0 && cols > 0 ? (rows - 1) * ld + cols : 0;
}

/**
 * The pages a memory for `bytes` starts with and may grow to: its size up front, and growth headroom for
 * the arrays its owner adds later (×GROWTH_FACTOR, at least GROWTH_MIN_BYTES more), at most 4 GiB.
 */
export function maximumPages(bytes: number): { initial: number; maximum: number } {
  const initial = Math.min(MAX_PAGES, Math.max(1, Math.ceil(bytes / PAGE_BYTES)));
  const grown = Math.max(GROWTH_FACTOR * bytes, bytes + GROWTH_MIN_BYTES);
  return { initial, maximum: Math.min(MAX_PAGES, Math.max(initial, Math.ceil(grown / PAGE_BYTES))) };
}

/** Where a workspace of `bytesHint` bytes keeps its arrays, and the note to give when it is not `choice`. */
export interface WorkspacePlan {
  backend: Backend;
  note: string | null;
}

const GIB = 1024 ** 3;

/**
 * Decides before allocating: a wasm workspace whose up-front size exceeds wasm32's 4 GiB runs as
 * TypeScript (a memory cannot hold it; ordinary memory can).
 */
export function workspacePlan(bytesHint: number, choice: Backend): WorkspacePlan {
  if (choice === 'wasm' && bytesHint > WASM_MEMORY_LIMIT) {
    return {
      backend: 'js',
      note: `a policy's state needs ${(bytesHint / GIB).toFixed(1)} GiB, more than a WebAssembly memory holds (4 GiB): its kernels run as TypeScript (same results, slower)`,
    };
  }
  return { backend: choice, note: null };
}

/** Notes already given by this thread (each once). */
const notesGiven = new Set<string>();

/** Writes `note` to stderr once per thread. */
function noteOnce(key: string, note: string): void {
  if (notesGiven.has(key)) return;
  notesGiven.add(key);
  process.stderr.write(`eofd: note: ${note}\n`);
}

/**
 * Storage for a policy's arrays: in a WebAssembly memory of its own under the wasm backend (sized up
 * front to `bytesHint`, grown if more is asked), plain Float64Arrays under the js backend, or under
 * wasm when no memory can be had (`workspacePlan`; the note says so).
 */
export class Workspace {
  declare readonly [WORKSPACE_BRAND]: true;
  readonly home: Home | null;

  constructor(bytesHint: number, choice: Backend = backend()) {
    checkAvailable(choice);
    const plan = workspacePlan(bytesHint, choice);
    if (plan.note !== null) noteOnce('over-4-GiB', plan.note);
    this.home = plan.backend === 'wasm' ? openHome(bytesHint) : null;
  }

  /** A zeroed array of `length` doubles. */
  float64(length: number): Float64Array {
    return this.home === null ? new Float64Array(length) : this.home.allocate(length);
  }
}

/** A Home for `bytes`, or null (with a note, once) when the system gives no WebAssembly memory. */
function openHome(bytes: number): Home | null {
  try {
    return new Home(bytes);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    noteOnce(
      'no-memory',
      `no WebAssembly memory could be reserved (${error.message}; under Node's trap handler each reserves ~10 GiB of address space, see ulimit -v): ` +
        'policies whose memory fails run their kernels as TypeScript (same results, slower); to keep WebAssembly, raise ulimit -v or run node with --disable-wasm-trap-handler',
    );
    return null;
  }
}

Object.defineProperty(Home.prototype, HOME_BRAND, { value: true });
Object.defineProperty(Workspace.prototype, WORKSPACE_BRAND, { value: true });
