#!/usr/bin/env python3
"""The app's launch as a person sees it, with nothing driving the window: a measurement,
not a test (no pass mark; out of CI).

    python3 scripts/measure-launch.py APP WIKIMIND_DB [--runs 5] [--base-url URL]

APP is the app binary (a release build: `bash scripts/build-deb.sh`), WIKIMIND_DB the
`wikimind.db` of a data dir, say one made by
`cargo bench -p wikimind --bench desktop_library -- seed DIR 100000`. Each run starts a
private Xvfb whose screen is a file in memory (`-fbdir`), starts the app on a copy of the
wiki, and reads the screen every 10 ms (one line in four, to take little of the processor
from the app) until it stays the same for three seconds. The launch is the time from starting the app's process to the first screen the
window kept: from then on, no more than one line of pixels in a hundred differs from the
settled one (the library's rows are drawn and nothing moves). The baseline, measured in the
same run the same way, is the app opened on an empty wiki: what the window, the web view and
the page cost before any row is read. Prints each run and the medians; leaves the settled
screen of the last run as an XWD file beside the temporary wiki, named on the last line.

The screen is read from Xvfb's own file, not through the X server, so reading it does not
slow the app down; only a screen that changed is kept (by its checksum).
"""

import argparse
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import mmap
import time
import zlib

WIDTH, HEIGHT = 1280, 800
# A port nothing listens on: the app finds no model server, and says so in its banner.
NO_SERVER = "http://127.0.0.1:9"
SETTLED_S = 3.0
GIVE_UP_S = 120.0
# How often the screen is looked at, and which of its lines: one in four, read through a
# memory map, costs about 0.6 ms of a core; the whole screen read and summed every 4 ms
# took about a third of one of this machine's two cores from the app it measures.
POLL_S = 0.010
LINES_LOOKED_AT = 4


def xwd_pixels(path):
    """The pixel bytes of the XWD file Xvfb keeps for its screen, and the bytes per line."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 100:
        return b"", 0  # Xvfb has not written its header yet
    header_size, = struct.unpack(">I", data[0:4])
    bytes_per_line, = struct.unpack(">I", data[48:52])
    ncolors, = struct.unpack(">I", data[76:80])
    start = header_size + ncolors * 12
    return data[start:start + bytes_per_line * HEIGHT], bytes_per_line


def lines_differing(a, b, stride):
    """How many lines of pixels differ between two screens."""
    return sum(1 for y in range(HEIGHT) if a[y * stride:(y + 1) * stride] != b[y * stride:(y + 1) * stride])


def free_display():
    for n in range(140, 200):
        if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
            return n
    raise SystemExit("no free X display number")


def launch_once(app, db, keep, verbose=False, frames_dir=None, base_url=NO_SERVER, settled_s=SETTLED_S):
    """One launch: ms from starting the app to the screen it kept, and the settled screen."""
    home = tempfile.mkdtemp(prefix="wikimind-launch-")
    data = os.path.join(home, "data")
    os.makedirs(data)
    os.makedirs(os.path.join(home, "config"))
    if db:
        shutil.copyfile(db, os.path.join(data, "wikimind.db"))
        # The copy's pages written out first: a person's wiki is not 1.4 GB of writeback
        # in flight as the app starts.
        os.sync()
    fb = os.path.join(home, "fb")
    os.makedirs(fb)
    display = free_display()
    xvfb = subprocess.Popen(
        ["Xvfb", f":{display}", "-screen", "0", f"{WIDTH}x{HEIGHT}x24", "-fbdir", fb, "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    screen = os.path.join(fb, "Xvfb_screen0")
    try:
        # Xvfb is ready once its socket is there and its screen file holds a whole screen.
        stride = 0
        for _ in range(1000):
            if os.path.exists(f"/tmp/.X11-unix/X{display}") and os.path.exists(screen):
                blank, stride = xwd_pixels(screen)
                if stride >= WIDTH * 3 and len(blank) == stride * HEIGHT:
                    break
            time.sleep(0.01)
        else:
            raise SystemExit("Xvfb did not start")
        time.sleep(0.2)
        blank, stride = xwd_pixels(screen)
        env = dict(
            os.environ,
            DISPLAY=f":{display}",
            WIKIMIND_DATA_DIR=data,
            WIKIMIND_PROVIDER="ollama",
            WIKIMIND_BASE_URL=base_url,
            WIKIMIND_MODEL="launch-measure",
            XDG_CONFIG_HOME=os.path.join(home, "config"),
            XDG_DATA_HOME=os.path.join(home, "xdg-data"),
        )
        started = time.monotonic()
        app_proc = subprocess.Popen(
            ["dbus-run-session", "--", app],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(home, "app.log"), "wb"),
            start_new_session=True,
        )
        frames = []  # (seconds since start, pixels), each a screen that differs from the last
        screen_file = open(screen, "rb")
        view = mmap.mmap(screen_file.fileno(), 0, access=mmap.ACCESS_READ)
        header_size, = struct.unpack(">I", view[0:4])
        ncolors, = struct.unpack(">I", view[76:80])
        offset = header_size + ncolors * 12  # where the pixels start, as in xwd_pixels

        def looked_at():
            crc = 0
            for y in range(0, HEIGHT, LINES_LOOKED_AT):
                crc = zlib.crc32(view[offset + y * stride:offset + (y + 1) * stride], crc)
            return crc

        last_crc = looked_at()
        last_change = time.monotonic()
        while True:
            now = time.monotonic()
            if now - last_change > settled_s and frames:
                break
            if now - started > GIVE_UP_S:
                raise SystemExit(f"the screen did not settle in {GIVE_UP_S:.0f} s")
            crc = looked_at()
            if crc != last_crc:
                pixels, _ = xwd_pixels(screen)
                frames.append((now - started, pixels))
                if frames_dir:
                    name = f"{'wiki' if db else 'empty'}-{(now - started) * 1000:05.0f}ms.xwd"
                    shutil.copyfile(screen, os.path.join(frames_dir, name))
                last_crc = crc
                last_change = now
            time.sleep(POLL_S)
        view.close()
        screen_file.close()
        os.killpg(app_proc.pid, signal.SIGTERM)
        app_proc.wait(timeout=20)
        settled = frames[-1][1]
        kept = frames[-1][0]
        for at, pixels in reversed(frames):
            differing = lines_differing(pixels, settled, stride)
            if verbose:
                print(f"  screen at {at * 1000:7.0f} ms: {differing} lines differ from the settled one")
            if differing > HEIGHT // 100:
                break
            kept = at
        if keep:
            shutil.copyfile(screen, keep)
        return kept * 1000, len(frames)
    finally:
        xvfb.terminate()
        xvfb.wait(timeout=20)
        shutil.rmtree(home, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app")
    parser.add_argument("db")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="print each screen drawn")
    parser.add_argument("--frames", metavar="DIR", help="keep each screen drawn as an XWD file in DIR")
    parser.add_argument(
        "--base-url",
        default=NO_SERVER,
        help="the Ollama server the app is given (model `launch-measure`); by default none, so "
        "the model banner is part of the screen kept",
    )
    parser.add_argument(
        "--settled",
        type=float,
        default=SETTLED_S,
        metavar="SECONDS",
        help="how long the screen must stay the same to be kept (default 3); longer to see what "
        "comes after a wait, say the library after an upgrade's notice",
    )
    args = parser.parse_args()
    if args.frames:
        os.makedirs(args.frames, exist_ok=True)
    shot = os.path.join(tempfile.gettempdir(), "wikimind-launch-settled.xwd")
    empty, full = [], []
    for run in range(args.runs):
        ms, n = launch_once(args.app, None, None, args.verbose, args.frames, args.base_url, args.settled)
        empty.append(ms)
        print(f"run {run + 1}: empty wiki   {ms:7.0f} ms to the screen kept ({n} screens drawn)", flush=True)
        ms, n = launch_once(
            args.app, args.db, shot if run == args.runs - 1 else None, args.verbose, args.frames, args.base_url, args.settled
        )
        full.append(ms)
        print(f"run {run + 1}: the wiki     {ms:7.0f} ms to the screen kept ({n} screens drawn)", flush=True)
    e, f = statistics.median(empty), statistics.median(full)
    print(f"launch to a settled library: median {f:.0f} ms (baseline, an empty wiki: {e:.0f} ms; {f / e:.2f}x)")
    print(f"the settled screen of the last run: {shot}")


if __name__ == "__main__":
    sys.exit(main())
