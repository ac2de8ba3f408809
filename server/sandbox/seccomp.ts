/**
 * The seccomp filter of every sandboxed process (README "Security model"): a classic BPF
 * program, handed to bubblewrap with `--seccomp FD`, that refuses the system calls a tool
 * never needs — debugging other processes, mounting, namespaces, kernel modules and
 * keyrings, BPF, perf, kexec, swap, reboot… — with EPERM, and `clone3` with ENOSYS (glibc
 * then falls back to `clone`, whose flags the filter can check: any CLONE_NEW* is refused).
 * Only x86_64 (its x32 numbers refused) and aarch64 are known; a process of any other
 * architecture is killed at its first system call, and the sandbox does not start there
 * (seccompFilter returns undefined).
 */

/** `struct seccomp_data` offsets: nr, arch, then the arguments (low 32 bits first, little endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
const X32_SYSCALL_BIT = 0x40000000;

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JA = 0x05;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;

const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
export const CLONE_NEW_FLAGS = 0x7e020000;

/** Refused with EPERM: the names, in the order of DENIED_NUMBERS' columns. */
export const DENIED_SYSCALLS = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "mount",
  "umount2",
  "pivot_root",
  "move_mount",
  "open_tree",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "swapon",
  "swapoff",
  "reboot",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "perf_event_open",
  "userfaultfd",
  "unshare",
  "setns",
  "acct",
  "quotactl",
  "quotactl_fd",
  "open_by_handle_at",
  "name_to_handle_at",
  "sethostname",
  "setdomainname",
  "kcmp",
  "lookup_dcookie",
  "syslog",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
] as const;
type Denied = (typeof DENIED_SYSCALLS)[number];

/**
 * Calls added since Linux 5.1 have one number on every architecture (the kernel's unified
 * numbering from 424 on): these denied ones, and clone3.
 */
const UNIFIED = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  quotactl_fd: 443,
} as const satisfies Partial<Record<Denied, number>>;
const CLONE3 = 435;

interface ArchTable {
  audit: number;
  /** Numbers of the denied calls this architecture numbers its own way (the others are UNIFIED). */
  denied: Omit<Record<Denied, number>, keyof typeof UNIFIED>;
  /** Denied on this architecture only (they exist nowhere else). */
  extra: number[];
  clone: number;
  /** Numbers at or above this are another ABI (x32 on x86_64): refused. */
  foreignAbove?: number;
}

const X86_64: ArchTable = {
  audit: AUDIT_ARCH_X86_64,
  denied: {
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    kexec_load: 246,
    kexec_file_load: 320,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    bpf: 321,
    perf_event_open: 298,
    userfaultfd: 323,
    unshare: 272,
    setns: 308,
    acct: 163,
    quotactl: 179,
    open_by_handle_at: 304,
    name_to_handle_at: 303,
    sethostname: 170,
    setdomainname: 171,
    kcmp: 312,
    lookup_dcookie: 212,
    syslog: 103,
  },
  // iopl, ioperm, uselib
  extra: [172, 173, 134],
  clone: 56,
  foreignAbove: X32_SYSCALL_BIT,
};

const AARCH64: ArchTable = {
  audit: AUDIT_ARCH_AARCH64,
  denied: {
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    swapon: 224,
    swapoff: 225,
    reboot: 142,
    kexec_load: 104,
    kexec_file_load: 294,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    bpf: 280,
    perf_event_open: 241,
    userfaultfd: 282,
    unshare: 97,
    setns: 268,
    acct: 89,
    quotactl: 60,
    open_by_handle_at: 265,
    name_to_handle_at: 264,
    sethostname: 161,
    setdomainname: 162,
    kcmp: 272,
    lookup_dcookie: 18,
    syslog: 116,
  },
  extra: [],
  clone: 220,
};

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const op = (code: number, k: number, jt = 0, jf = 0): Instruction => ({ code, jt, jf, k });
const ret = (k: number) => op(BPF_RET_K, k);

/** The checks of one architecture, from loading the call number to the verdict. */
function archBlock(table: ArchTable): Instruction[] {
  const out: Instruction[] = [op(BPF_LD_W_ABS, NR)];
  if (table.foreignAbove !== undefined) out.push(op(BPF_JMP_JGE_K, table.foreignAbove, 0, 1), ret(RET_ERRNO | EPERM));
  for (const nr of [...Object.values(table.denied), ...Object.values(UNIFIED), ...table.extra]) out.push(op(BPF_JMP_JEQ_K, nr, 0, 1), ret(RET_ERRNO | EPERM));
  out.push(op(BPF_JMP_JEQ_K, CLONE3, 0, 1), ret(RET_ERRNO | ENOSYS));
  // clone(flags, …): flags are the first argument on both architectures.
  out.push(
    op(BPF_JMP_JEQ_K, table.clone, 0, 3),
    op(BPF_LD_W_ABS, ARG0_LOW),
    op(BPF_JMP_JSET_K, CLONE_NEW_FLAGS, 0, 1),
    ret(RET_ERRNO | EPERM),
    ret(RET_ALLOW),
  );
  return out;
}

/** The whole program: dispatch on the architecture, then that architecture's checks. */
export function seccompProgram(): Instruction[] {
  const tables = [X86_64, AARCH64];
  const blocks = tables.map(archBlock);
  // Header: load arch; per table "jeq audit ? next : skip the ja"; "ja block"; then kill.
  const header: Instruction[] = [op(BPF_LD_W_ABS, ARCH)];
  const headerLength = 1 + tables.length * 2 + 1;
  let blockStart = headerLength;
  tables.forEach((table, i) => {
    const jaIndex = header.length + 1;
    header.push(op(BPF_JMP_JEQ_K, table.audit, 0, 1), op(BPF_JMP_JA, blockStart - (jaIndex + 1)));
    blockStart += blocks[i]?.length ?? 0;
  });
  header.push(ret(RET_KILL_PROCESS));
  return [...header, ...blocks.flat()];
}

/** The program as bytes (`struct sock_filter`, little endian), as bwrap reads it from the fd. */
export function seccompBytes(program: Instruction[] = seccompProgram()): Buffer {
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach((instruction, i) => {
    buffer.writeUInt16LE(instruction.code, i * 8);
    buffer.writeUInt8(instruction.jt, i * 8 + 2);
    buffer.writeUInt8(instruction.jf, i * 8 + 3);
    buffer.writeUInt32LE(instruction.k >>> 0, i * 8 + 4);
  });
  return buffer;
}

/** The filter for this machine, or undefined (with the reason) when its architecture is not one the filter knows. */
export function seccompFilter(arch: string = process.arch): { bytes: Buffer } | { unsupported: string } {
  if (arch !== "x64" && arch !== "arm64") {
    return { unsupported: `the sandbox's seccomp filter knows x86_64 and aarch64 only, not ${arch}` };
  }
  return { bytes: seccompBytes() };
}
