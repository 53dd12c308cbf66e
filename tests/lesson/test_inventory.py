"""The SQLite inventory: built by the lab itself, and shaped so that every incident happens for real."""

import sqlite3
import threading

import pytest

from agtool import inventory


def in_new_thread(fn):
    """fn() in a fresh thread (so a fresh connection), returning its result or raising its exception."""
    outcome = {}

    def target():
        try:
            outcome["value"] = fn()
        except Exception as error:  # handed back to the test below
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def count(db, table):
    return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_the_database_is_built_and_filled_on_first_use():
    """connect() gives a database holding every product, warehouse, stock row and route."""
    db = inventory.connect()
    assert count(db, "products") == len(inventory.PRODUCTS)
    assert count(db, "stock") == len(inventory.STOCK)
    assert count(db, "routes") == len(inventory.ROUTES)
    assert count(db, "warehouses") == len(inventory.WAREHOUSES)


def test_one_connection_per_thread():
    """The same thread reuses its connection; another thread gets its own (SQLite must not share one)."""
    assert inventory.connect() is inventory.connect()
    assert in_new_thread(inventory.connect) is not inventory.connect()


def test_agtool_db_keeps_the_database_in_a_file(tmp_path, monkeypatch):
    """AGTOOL_DB=path: the inventory is written there, once; opening it again adds no rows."""
    path = tmp_path / "inventory.sqlite"
    monkeypatch.setenv("AGTOOL_DB", str(path))
    in_new_thread(inventory.connect)
    in_new_thread(inventory.connect)
    with sqlite3.connect(path) as db:
        assert count(db, "stock") == len(inventory.STOCK)


def test_every_warehouse_with_stock_or_a_route_has_a_region():
    """No stock row or route points at a warehouse the inventory does not place."""
    used = {w for _, w, _ in inventory.STOCK} | {origin for origin, *_ in inventory.ROUTES}
    assert used <= set(inventory.WAREHOUSES)
    assert set(inventory.WAREHOUSES.values()) <= set(inventory.REGIONS)


def test_rows_come_nearest_region_first_then_most_stock():
    """stock_lookup_v2 orders rows: the asked region first, then by quantity."""
    assert inventory.stock_lookup_v2("A-100", "busan", 2) == {
        "sku": "A-100",
        "rows": [{"region": "busan", "qty": 3}, {"region": "seoul", "qty": 5}],
    }
    assert inventory.stock_lookup_v2("A-100", "jeju", 1)["rows"] == [{"region": "jeju", "qty": 1}]


@pytest.mark.parametrize("sku", [p[0] for p in inventory.PRODUCTS])
@pytest.mark.parametrize("limit", [1, 2])
def test_v2_honours_limit_for_every_sku(sku, limit):
    """The new endpoint never returns more rows than limit."""
    assert 1 <= len(inventory.stock_lookup_v2(sku, "seoul", limit)["rows"]) <= limit


def test_old_endpoint_ignores_limit_only_for_bulk_skus():
    """Old stock_lookup: 20 rows for bulk D-400, limit honoured for ordinary SKUs."""
    assert len(inventory.stock_lookup("D-400", "seoul", 1)["rows"]) == 20
    assert inventory.stock_lookup("A-100", "seoul", 1) == inventory.stock_lookup_v2("A-100", "seoul", 1)


def test_an_unknown_sku_has_no_rows():
    """Both endpoints answer an unknown SKU with an empty list, not an error."""
    assert inventory.stock_lookup("Z-999", "seoul", 2) == {"sku": "Z-999", "rows": []}
    assert inventory.stock_lookup_v2("Z-999", "seoul", 2) == {"sku": "Z-999", "rows": []}


def test_jeju_answers_in_hours():
    """Every route to Jeju but the local one counts hours: more than 14 "days"."""
    assert inventory.delivery_eta("A-100", "jeju") == {"sku": "A-100", "region": "jeju", "days": 72}
    assert inventory.delivery_eta("C-300", "jeju")["days"] == 1
    assert inventory.delivery_eta("B-200", "seoul")["days"] == 2


def test_no_route_from_daejeon_to_jeju_raises_key_error():
    """E-500 ships from daejeon, which has no Jeju route: KeyError."""
    with pytest.raises(KeyError, match="jeju"):
        inventory.delivery_eta("E-500", "jeju")


# ── The order desk: a write ──────────────────────────────────────────────────


def written_by(fn, *args, **kwargs) -> tuple[list[dict], object]:
    """The orders fn wrote, and what it returned or raised."""
    before = len(inventory.orders())
    try:
        outcome = fn(*args, **kwargs)
    except Exception as error:  # the desk's own answer, looked at below
        outcome = error
    return inventory.orders()[before:], outcome


@pytest.mark.parametrize("qty", [True, 0, -3, "2"])
def test_the_desk_writes_whatever_it_is_handed(qty):
    """No check in the desk: True is an order of 1, 0 and -3 are written, "2" is stored as 2."""
    written, answer = written_by(inventory.place_order, sku="A-100", qty=qty, region="busan")
    stored = {True: 1, "2": 2}.get(qty, qty)  # SQLite's INTEGER column: True is 1, a numeric text a number
    assert [(order["sku"], order["qty"], order["region"]) for order in written] == [("A-100", stored, "busan")]
    assert answer == {"order_id": written[0]["order_id"], "sku": "A-100", "qty": qty, "region": "busan"}


def test_a_jeju_order_is_written_before_its_confirmation_times_out():
    """The write happened; only its answer is lost: each call writes one more order, and raises."""
    for tries in (1, 2):
        written, answer = written_by(inventory.place_order, sku="C-300", qty=1, region="jeju")
        assert len(written) == 1 and isinstance(answer, TimeoutError), tries


def test_a_request_id_makes_the_retry_write_nothing_again():
    """One order a request_id: the second call returns the order the first one wrote, even after a timeout."""
    written, answer = written_by(inventory.place_order, sku="C-300", qty=1, region="jeju", request_id="t-jeju")
    assert len(written) == 1 and isinstance(answer, TimeoutError)
    again, answer = written_by(inventory.place_order, sku="C-300", qty=1, region="jeju", request_id="t-jeju")
    assert again == [] and answer == written[0]
    other, _ = written_by(inventory.place_order, sku="A-100", qty=1, region="busan", request_id="t-other")
    assert len(other) == 1 and other[0]["order_id"] > written[0]["order_id"]


def test_a_database_on_disk_from_before_the_desk_gets_its_orders_table(tmp_path, monkeypatch):
    """AGTOOL_DB written by a lab without orders: the desk works on it, and the stock is not filled twice."""
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(inventory.SCHEMA)
        db.executemany("INSERT INTO products VALUES (?, ?, ?, ?)", inventory.PRODUCTS)
    monkeypatch.setenv("AGTOOL_DB", str(path))
    order = in_new_thread(lambda: inventory.place_order(sku="A-100", qty=1, region="seoul"))
    with sqlite3.connect(path) as db:
        assert count(db, "orders") == 1 and count(db, "products") == len(inventory.PRODUCTS)
    assert order["order_id"] == 1
