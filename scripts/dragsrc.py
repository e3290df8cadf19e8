#!/usr/bin/env python3
"""A tiny X11 drag source for trying file drops on the real window under Xvfb.

    python3 scripts/dragsrc.py X Y FILE...

Opens a small GTK window at (X, Y) whose button offers FILE... as text/uri-list when
dragged. Drive it with xdotool: mousedown on the button, move onto the ArtifactFlow window
in steps, mouseup. Needs Debian's python3-gi and gir1.2-gtk-3.0. Not used by the tests.
"""
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

x, y = int(sys.argv[1]), int(sys.argv[2])
uris = ["file://" + os.path.abspath(p) for p in sys.argv[3:]]

win = Gtk.Window(title="drag source")
win.set_decorated(False)
win.move(x, y)
btn = Gtk.Button(label="Drag %d file(s)" % len(uris))
btn.set_size_request(160, 50)
btn.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
btn.drag_source_add_uri_targets()
btn.connect("drag-data-get", lambda w, ctx, data, info, t: data.set_uris(uris))
btn.connect("drag-begin", lambda *a: print("drag-begin", flush=True))
btn.connect("drag-end", lambda *a: print("drag-end", flush=True))
btn.connect("drag-failed", lambda w, ctx, res: print("drag-failed", res, flush=True) or False)
win.add(btn)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
