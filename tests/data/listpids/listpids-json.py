#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Print what `scontrol --json listpids JOB` prints, as Slurm 24.11 makes it.

Follows SchedMD/slurm at tag slurm-24-11-0-1 (commit
00a43d9e72a90f61547835ac9490f97669221322); the keys are the same through
commit 284c3b95f08a2dc2478499837b03355e1b9c5c75 (data_parser v0.0.43-46):

  src/scontrol/info_job.c      _list_pids_one_step: one entry per live task
      (stepd_task_info: global_task_id = gtid, local_task_id = id), then one
      per other pid of the step's proctrack container (stepd_list_pids) with
      both ids NO_VAL; step_id by log_build_step_id_str(STEP_ID_FLAG_NO_JOB |
      STEP_ID_FLAG_NO_PREFIX): "0", "batch", "extern", "interactive", "0+1".
  src/plugins/data_parser/v0.0.42/parsers.c
      PARSER_ARRAY(LISTPIDS_INFO): global_task_id, local_task_id
      (UINT32_NO_VAL), job_id, pid (UINT32), step_id (STRING), in that order;
      PARSER_ARRAY(OPENAPI_LISTPIDS_INFO_RESP): "pids", then meta, errors,
      warnings; DUMP_FUNC(UINT32_NO_VAL): {"set", "infinite", "number"}
      (NO_VAL: set false, number 0), or with the +complex flag a bare
      number, null for NO_VAL, "Infinity".
  src/interfaces/data_parser.c data_parser_cli_meta, data_parser_dump_cli_stdout
      (serializer flags SER_FLAGS_PRETTY)
  src/plugins/serializer/json/serializer_json.c: json-c,
      JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_PRETTY.

The text is made by json-c itself (libjson-c.so.5 through ctypes) when it
is installed, else by an emulation of its pretty printer (2 spaces a
level, '"key": value', '/' escaped).

Usage: listpids-json.py [--plain] [--complex] JOB SPEC
SPEC: one line per pid, "PID STEP LOCALID GLOBALID", '-' for an id that is
not a task's (NO_VAL).  --plain prints the table of the plain
`scontrol listpids` instead (same file, _print_listpids_info).
"""
import ctypes
import sys

NO_VAL = None


def entries(job, spec):
    out = []
    for line in open(spec):
        f = line.split()
        if len(f) != 4:
            continue
        pid, step, lid, gid = f
        out.append({
            "global_task_id": None if gid == "-" else int(gid),
            "local_task_id": None if lid == "-" else int(lid),
            "job_id": int(job),
            "pid": int(pid),
            "step_id": step,
        })
    return out


def no_val(v, complex_mode):
    if complex_mode:
        return v
    if v is None:
        return {"set": False, "infinite": False, "number": 0}
    return {"set": True, "infinite": False, "number": v}


def tree(job, ents, complex_mode):
    pids = []
    for e in ents:
        pids.append({
            "global_task_id": no_val(e["global_task_id"], complex_mode),
            "local_task_id": no_val(e["local_task_id"], complex_mode),
            "job_id": e["job_id"],
            "pid": e["pid"],
            "step_id": e["step_id"],
        })
    return {
        "pids": pids,
        "meta": {
            "plugin": {
                "type": "",
                "name": "",
                "data_parser": "data_parser/v0.0.42",
                "accounting_storage": "accounting_storage/slurmdbd",
            },
            "client": {"source": "", "user": "alice", "group": "alice"},
            # data_parser_cli_meta copies argc - 1 of listpids' arguments
            "command": ["listpids"],
            "slurm": {
                "version": {"major": "24", "micro": "0", "minor": "11"},
                "release": "24.11.0",
                "cluster": "lab",
            },
        },
        "errors": [],
        "warnings": [],
    }


def with_jsonc(t):
    try:
        lib = ctypes.CDLL("libjson-c.so.5")
    except OSError:
        return None
    vp = ctypes.c_void_p
    lib.json_object_new_object.restype = vp
    lib.json_object_new_array.restype = vp
    lib.json_object_new_string.restype = vp
    lib.json_object_new_string.argtypes = [ctypes.c_char_p]
    lib.json_object_new_int64.restype = vp
    lib.json_object_new_int64.argtypes = [ctypes.c_int64]
    lib.json_object_new_boolean.restype = vp
    lib.json_object_new_boolean.argtypes = [ctypes.c_int]
    lib.json_object_object_add.argtypes = [vp, ctypes.c_char_p, vp]
    lib.json_object_array_add.argtypes = [vp, vp]
    lib.json_object_to_json_string_ext.restype = ctypes.c_char_p
    lib.json_object_to_json_string_ext.argtypes = [vp, ctypes.c_int]
    lib.json_object_put.argtypes = [vp]

    def conv(v):
        if v is None:
            return None
        if isinstance(v, bool):
            return lib.json_object_new_boolean(1 if v else 0)
        if isinstance(v, int):
            return lib.json_object_new_int64(v)
        if isinstance(v, str):
            return lib.json_object_new_string(v.encode())
        if isinstance(v, list):
            a = lib.json_object_new_array()
            for x in v:
                lib.json_object_array_add(a, conv(x))
            return a
        o = lib.json_object_new_object()
        for k, x in v.items():
            lib.json_object_object_add(o, k.encode(), conv(x))
        return o

    o = conv(t)
    # JSON_C_TO_STRING_SPACED (1) | JSON_C_TO_STRING_PRETTY (2)
    s = lib.json_object_to_json_string_ext(o, 3).decode()
    lib.json_object_put(o)
    return s


def emulate(v, level=0):
    ind = "  "
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        s = v.replace("\\", "\\\\").replace('"', '\\"').replace("/", "\\/")
        return '"' + s + '"'
    if isinstance(v, list):
        body = ",\n".join(ind * (level + 1) + emulate(x, level + 1)
                          for x in v)
        return "[\n" + body + ("\n" if v else "") + ind * level + "]"
    body = ",\n".join(ind * (level + 1) + emulate(k) + ": " +
                      emulate(x, level + 1) for k, x in v.items())
    return "{\n" + body + ("\n" if v else "") + ind * level + "}"


def plain(ents):
    print("%-8s %-8s %-8s %-7s %-8s" % ("PID", "JOBID", "STEPID", "LOCALID",
                                         "GLOBALID"))
    for e in ents:
        lid = e["local_task_id"]
        gid = e["global_task_id"]
        print("%-8d %-8d %-8s " % (e["pid"], e["job_id"], e["step_id"]) +
              ("%-7d " % lid if lid is not None else "%-7s " % "-") +
              ("%-8d " % gid if gid is not None else "%-8s " % "-"))


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    ents = entries(args[0], args[1])
    if "--plain" in argv:
        plain(ents)
        return 0
    t = tree(args[0], ents, "--complex" in argv)
    s = with_jsonc(t)
    if s is None:
        s = emulate(t)
    print(s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
