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
