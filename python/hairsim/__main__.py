"""``python3 -m hairsim sweep SPEC.json [--scheduler ADDRESS | --local N] [--out DIR]``: the
sweep verb (`hairsim sweep` hands over to it; docs/cluster.md). Exit 0 when every variant is
complete, 1 when one failed or diverged (sweep.csv says which), 2 for a bad spec or option (one
line naming the file and field; nothing written)."""
import argparse
import os
import sys

from . import Error, RunFailure, sweep


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hairsim")
    verbs = parser.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("sweep", help="run every variant of a scene on Dask (docs/cluster.md)",
                         description="Run every variant of a spec (scene, set, grid or variants) "
                         "as one Dask task each; DIR/sweep.csv one row per variant.")
    p.add_argument("spec", metavar="SPEC.json")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--local", metavar="N", type=int,
                       help="a LocalCluster of N worker processes (default: one per core)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: out/<spec name>)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    a = parser.parse_args(argv)
    out = a.out or os.path.join("out", os.path.splitext(os.path.basename(a.spec))[0])
    try:
        table = sweep(a.spec, out, scheduler=a.scheduler, local=a.local,
                      progress=None if a.quiet else sys.stderr)
    except Error as e:
        print(f"hairsim: error: {e}", file=sys.stderr)
        return 2
    except RunFailure as e:  # no workers: distributed missing, a LocalCluster that did not start
        print(f"hairsim: failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("hairsim: sweep interrupted; run it again to continue (complete variants are "
              "skipped, the others resume from their checkpoints)", file=sys.stderr)
        return 130
    rows = table.to_dict("records") if hasattr(table, "to_dict") else table
    bad = [r for r in rows if r["status"] != "complete"]
    print(os.path.join(out, "sweep.csv"))
    for r in bad:
        print(f"hairsim: variant {r['folder']}: {r['status']}: {r.get('reason', '')}",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
