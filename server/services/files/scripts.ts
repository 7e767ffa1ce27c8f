/**
 * The shell scripts the file service runs inside the sandbox.
 *
 * Why a shell at all: each exec costs tens of milliseconds, so work on N paths (check them,
 * read them, write them) is batched into ONE exec, which needs a loop. Every script is a
 * constant; user values (paths, modes, patterns) reach it only as positional parameters
 * (`['sh', '-c', SCRIPT, 'sh', ...values]`) and are always expanded quoted ("$1", "$@"), so no
 * user text is ever parsed as shell code. Every path argument is absolute (see `inSandbox`), so
 * none can be mistaken for an option; `--` ends options where the tool accepts it.
 *
 * Scripts report what they detect as `shoal:<STATUS>:<index>[:<detail>]` lines on stderr
 * (parsed by `fs-errors.ts`); tools' own messages are in the C locale.
 */

/** Builds the argv that runs `script` with `values` as $1, $2, … */
export function shellArgv(script: string, values: readonly string[]): string[] {
  return ['sh', '-c', script, 'sh', ...values];
}

/**
 * $1: 1 to stop at the first unreadable path, 0 to report them all; $2: byte limit for the
 * total; then the paths. Checks each path (builtins only, no process per path), reports the
 * bad ones by index, sums the sizes of the good ones with one `stat`, and writes the good
 * ones, in order, as one tar stream on stdout (each file framed by its size).
 */
export const READ_FILES = `
strict=$1 limit=$2
shift 2
i=0
for f do
  shift
  if [ -d "$f" ]; then e=EISDIR
  elif [ ! -e "$f" ]; then e=ENOENT
  elif [ ! -f "$f" ]; then e=ENOTREG
  elif [ ! -r "$f" ]; then e=EACCES
  else e=; set -- "$@" "$f"
  fi
  if [ -n "$e" ]; then
    echo "shoal:$e:$i" >&2
    if [ "$strict" = 1 ]; then exit 0; fi
  fi
  i=$((i + 1))
done
[ $# -gt 0 ] || exit 0
total=0
for size in $(stat -L -c %s -- "$@"); do total=$((total + size)); done
if [ "$total" -gt "$limit" ]; then echo "shoal:TOOBIG:$total" >&2; exit 0; fi
exec tar -c -h --hard-dereference --no-recursion -f - -- "$@"
`;

/**
 * $1: "create" (make missing parent directories and files) or "existing" (rewrite files that
 * exist, never create one); then triples: path, byte count, mode ("-" keeps the mode).
 * stdin: the contents, one after another. Each file is written IN PLACE by dd (opened with
 * O_TRUNC: same inode, so mode and owner stay), reading exactly its byte count from stdin.
 * A file that cannot be opened has its bytes skipped so the next file stays framed; a write
 * that fails midway stops the script (the rest of stdin can no longer be framed).
 */
export const WRITE_FILES = `
mode=$1
shift
skip() { dd of=/dev/null bs=65536 count="$1" iflag=count_bytes,fullblock status=none; }
i=0
while [ $# -ge 3 ]; do
  f=$1 n=$2 perm=$3
  shift 3
  conv=conv=nocreat
  if [ "$mode" = create ]; then
    conv=
    d=\${f%/*}
    if [ -n "$d" ] && [ ! -d "$d" ] && ! err=$(mkdir -p -- "$d" 2>&1); then
      echo "shoal:ERR:$i:$err" >&2
      skip "$n"
      i=$((i + 1))
      continue
    fi
  fi
  # $conv is one of two constant words or empty, never user input: unquoted on purpose.
  if err=$(dd of="$f" bs=65536 count="$n" iflag=count_bytes,fullblock $conv status=none 2>&1); then
    if [ "$perm" != - ] && ! err=$(chmod -- "$perm" "$f" 2>&1); then
      echo "shoal:ERR:$i:$err" >&2
    else
      echo "shoal:OK:$i" >&2
    fi
  else
    echo "shoal:ERR:$i:$err" >&2
    case $err in
      *"failed to open"*) skip "$n" ;;
      *) exit 0 ;;
    esac
  fi
  i=$((i + 1))
done
`;

/** $1: a directory; then the arguments of the find command that lists it. */
export const LIST_DIRECTORY = `
if [ ! -e "$1" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ ! -d "$1" ]; then echo "shoal:ENOTDIR:0" >&2; exit 0; fi
shift
exec find "$@"
`;

/**
 * $1: path; $2: "bytes" ($3 first byte, 1-based; $4 byte count), "head" or "tail" ($3 lines);
 * $5: output cap in bytes.
 */
export const READ_FILE = `
f=$1
if [ -d "$f" ]; then echo "shoal:EISDIR:0" >&2; exit 0; fi
if [ ! -e "$f" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ ! -f "$f" ]; then echo "shoal:ENOTREG:0" >&2; exit 0; fi
case $2 in
  bytes) tail -c "+$3" -- "$f" | head -c "$4" ;;
  head) head -n "$3" -- "$f" | head -c "$5" ;;
  tail) tail -n "$3" -- "$f" | head -c "$5" ;;
esac
`;

/**
 * $1: path; $2: 1 to remove a directory tree. A file or symlink is unlinked (a symlink to a
 * directory removes the link only); a directory needs $2 unless it is empty.
 */
export const DELETE = `
f=$1
if [ ! -e "$f" ] && [ ! -L "$f" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ -d "$f" ] && [ ! -L "$f" ]; then
  if [ "$2" = 1 ]; then exec rm -rf -- "$f"; fi
  exec rmdir -- "$f"
fi
exec rm -f -- "$f"
`;

/** $1: source; $2: destination (the new name itself, never a directory to move into); $3: 1 to replace. */
export const MOVE = `
if [ ! -e "$1" ] && [ ! -L "$1" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ "$3" != 1 ] && { [ -e "$2" ] || [ -L "$2" ]; }; then echo "shoal:EEXIST:1" >&2; exit 0; fi
exec mv -f -T -- "$1" "$2"
`;

/**
 * $1: source; $2: destination (the copy's own name); $3: 1 to copy a directory tree; $4: 1 to
 * write over an existing destination. cp -a keeps modes, owners, times and symlinks.
 */
export const COPY = `
if [ ! -e "$1" ] && [ ! -L "$1" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ -d "$1" ] && [ "$3" != 1 ]; then echo "shoal:EISDIR:0" >&2; exit 0; fi
if [ "$4" != 1 ] && { [ -e "$2" ] || [ -L "$2" ]; }; then echo "shoal:EEXIST:1" >&2; exit 0; fi
exec cp -a -T -- "$1" "$2"
`;

/** $1: path; $2: octal mode or empty; $3: owner[:group] / :group or empty. Owner first: chown clears set-id bits. */
export const SET_PERMISSIONS = `
if [ ! -e "$1" ]; then echo "shoal:ENOENT:0" >&2; exit 0; fi
if [ -n "$3" ]; then chown -- "$3" "$1" || exit 1; fi
if [ -n "$2" ]; then exec chmod -- "$2" "$1"; fi
`;

/**
 * stdin: NUL-separated file paths. $1: pattern; $2: -F (fixed string) or -E (extended regex);
 * $3: -i or --no-ignore-case; $4: lines to keep. Binary files are skipped; each match is
 * written as path NUL line-number ":" text.
 */
export const GREP = `
xargs -0 -r grep -H -n -I -s -Z "$2" "$3" -e "$1" -- | head -n "$4"
`;
