"""The lab's inventory: a small SQLite database the tools read.

The lab builds it itself, in memory, on first use: no server, no download,
no file to keep in sync. The rows are chosen so that every incident of the
lesson happens for real, not because a test pretends:

- an unknown SKU has no rows, so a lookup returns an empty list;
- the old `stock_lookup` endpoint returns every warehouse row of a SKU kept in
  bulk (20 rows), whatever `limit` says;
- the Jeju route is fed by a sea-freight partner that counts in hours, so
  `delivery_eta` says 72 where the contract means days (at most 14);
- one warehouse has no route to Jeju, so asking for it raises `KeyError`;
- the order desk writes whatever it is handed, and the Jeju partner's confirmation
  of an order times out after the order is written: the write happened, its
  answer is lost, and a blind retry writes it again.

Set AGTOOL_DB to a file path to keep the database on disk and look at it
with the `sqlite3` command line.
"""

import os
import sqlite3
import threading

REGIONS = ("busan", "jeju", "seoul")

# warehouse -> region it stands in
WAREHOUSES = {
    "seoul-1": "seoul",
    "seoul-2": "seoul",
    "incheon": "seoul",
    "busan-1": "busan",
    "busan-2": "busan",
    "jeju-1": "jeju",
    "daejeon": "seoul",
}

# sku, name, stocking (ordinary | bulk), origin warehouse for deliveries
PRODUCTS = [
    ("A-100", "kettle", "ordinary", "seoul-1"),
    ("B-200", "teapot", "ordinary", "busan-1"),
    ("C-300", "tea tin", "ordinary", "jeju-1"),
    ("D-400", "mug (crate of 48)", "bulk", "incheon"),
    ("E-500", "stove", "ordinary", "daejeon"),
]

# sku, warehouse, qty
STOCK = [
    ("A-100", "seoul-1", 5),
    ("A-100", "busan-1", 3),
    ("A-100", "jeju-1", 1),
    ("B-200", "busan-1", 7),
    ("B-200", "seoul-2", 2),
    ("C-300", "jeju-1", 4),
    ("E-500", "daejeon", 2),
    # D-400 is kept in bulk: one row per pallet bay, 20 rows in all
    *[("D-400", f"incheon-bay-{bay:02d}", 10 + bay) for bay in range(1, 21)],
]
WAREHOUSES.update({f"incheon-bay-{bay:02d}": "seoul" for bay in range(1, 21)})

# origin warehouse, destination region, eta, unit of eta
ROUTES = [
    ("seoul-1", "seoul", 1, "days"),
    ("seoul-1", "busan", 2, "days"),
    ("busan-1", "busan", 1, "days"),
    ("busan-1", "seoul", 2, "days"),
    ("incheon", "seoul", 1, "days"),
    ("incheon", "busan", 3, "days"),
    ("daejeon", "seoul", 1, "days"),
    ("daejeon", "busan", 2, "days"),
    ("jeju-1", "jeju", 1, "days"),
    # The sea-freight partner reports hours, not days.
    ("seoul-1", "jeju", 72, "hours"),
    ("busan-1", "jeju", 48, "hours"),
    ("incheon", "jeju", 96, "hours"),
    # daejeon has no route to Jeju at all.
]

SCHEMA = """
CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, stocking TEXT, origin TEXT);
CREATE TABLE warehouses (warehouse TEXT PRIMARY KEY, region TEXT);
CREATE TABLE stock (sku TEXT, warehouse TEXT, qty INTEGER);
CREATE TABLE routes (origin TEXT, dest TEXT, eta INTEGER, unit TEXT);
"""
# Orders are written, never built from a list: a database kept on disk (AGTOOL_DB) from before the
# order desk gets its table on first use too. request_id is the caller's idempotency key (UNIQUE:
# one order a key; NULLs never clash, so orders without one are all written).
ORDERS = """
CREATE TABLE IF NOT EXISTS orders (
    order_id INTEGER PRIMARY KEY, sku TEXT, qty INTEGER, region TEXT, request_id TEXT UNIQUE
);
"""

_local = threading.local()


def connect() -> sqlite3.Connection:
    """This thread's connection to the inventory, built and filled on first use.

    One connection per thread (and per process, after a fork), because a
    SQLite connection must not be shared across either.
    """
    db = getattr(_local, "db", None)
    if db is None or _local.pid != os.getpid():
        db = _local.db = _open(os.environ.get("AGTOOL_DB", ":memory:"))
        _local.pid = os.getpid()
    return db


def _open(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'products'").fetchone():
        with db:
            db.executescript(SCHEMA)
            db.executemany("INSERT INTO products VALUES (?, ?, ?, ?)", PRODUCTS)
            db.executemany("INSERT INTO warehouses VALUES (?, ?)", WAREHOUSES.items())
            db.executemany("INSERT INTO stock VALUES (?, ?, ?)", STOCK)
            db.executemany("INSERT INTO routes VALUES (?, ?, ?, ?)", ROUTES)
    with db:
        db.executescript(ORDERS)
    return db


# ── The tools: the inventory service's own functions ─────────────────────────
# They are someone else's code, as tools usually are: the lab wraps them in a
# contract rather than trusting them.

_STOCK_BY_NEAREST = """
SELECT w.region, s.qty FROM stock s JOIN warehouses w USING (warehouse)
WHERE s.sku = ? ORDER BY w.region != ?, s.qty DESC, w.warehouse
"""


def stock_lookup(sku, region, limit):
    """Old endpoint: stock of a SKU per warehouse, nearest region first."""
    db = connect()
    rows = db.execute(_STOCK_BY_NEAREST, (sku, region)).fetchall()
    (stocking,) = db.execute("SELECT stocking FROM products WHERE sku = ?", (sku,)).fetchone() or ("",)
    if stocking != "bulk":  # bulk SKUs come back a whole page at a time: limit is ignored
        rows = rows[:limit]
    return {"sku": sku, "rows": [{"region": r, "qty": q} for r, q in rows]}


def stock_lookup_v2(sku, region, limit):
    """New endpoint: the same rows, and `limit` is honoured for every SKU."""
    rows = connect().execute(_STOCK_BY_NEAREST + " LIMIT ?", (sku, region, limit)).fetchall()
    return {"sku": sku, "rows": [{"region": r, "qty": q} for r, q in rows]}


def delivery_eta(sku, region):
    """Days for a SKU to reach a region from the warehouse it ships from."""
    eta_by_region = dict(
        connect().execute(
            "SELECT r.dest, r.eta FROM routes r JOIN products p ON p.origin = r.origin WHERE p.sku = ?", (sku,)
        )
    )
    return {"sku": sku, "region": region, "days": eta_by_region[region]}


# ── A write: the order desk ──────────────────────────────────────────────────
# A lookup that goes wrong can be asked again; an order cannot be taken back.


def place_order(sku, qty, region, request_id=None):
    """Write one order: qty units of a SKU, delivered to a region. It cannot be undone.

    The desk writes what it is handed, as internal services often do: qty=True is an
    order of 1 (SQLite stores True as 1), qty=0 an order of nothing. An order to Jeju
    is confirmed by the sea-freight partner, whose confirmation times out after the
    order is written. A request_id, made once per intended order, makes a retry safe:
    the order already written under it comes back, and nothing is written again.
    """
    db = connect()
    if request_id is not None:
        written = db.execute(f"{_ORDER} WHERE request_id = ?", (request_id,)).fetchone()
        if written:
            return _as_order(written)
    with db:
        cursor = db.execute(
            "INSERT INTO orders (sku, qty, region, request_id) VALUES (?, ?, ?, ?)", (sku, qty, region, request_id)
        )
    if region == "jeju":  # written already: only the answer is lost
        raise TimeoutError("the sea-freight partner did not confirm the order in time")
    return {"order_id": cursor.lastrowid, "sku": sku, "qty": qty, "region": region}


_ORDER = "SELECT order_id, sku, qty, region FROM orders"


def _as_order(row: tuple) -> dict:
    order_id, sku, qty, region = row
    return {"order_id": order_id, "sku": sku, "qty": qty, "region": region}


def orders() -> list[dict]:
    """Every order written so far, oldest first: what a test, or the notebook, counts."""
    return [_as_order(row) for row in connect().execute(f"{_ORDER} ORDER BY order_id")]
