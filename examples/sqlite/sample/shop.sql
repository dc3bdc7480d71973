-- The sample database (sample/shop.db is built from this file; see README).
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents >= 0)
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL DEFAULT 1,
  placed_at TEXT NOT NULL
);
CREATE INDEX orders_by_customer ON orders(customer_id);
CREATE VIEW order_totals AS
  SELECT o.id AS order_id, c.name AS customer, p.name AS product, o.quantity * p.price_cents AS total_cents
  FROM orders o JOIN customers c ON c.id = o.customer_id JOIN products p ON p.id = o.product_id;
INSERT INTO customers (id, name, email) VALUES
  (1, 'Ada Lovelace', 'ada@example.com'),
  (2, 'Grace Hopper', 'grace@example.com'),
  (3, 'Edsger Dijkstra', 'edsger@example.com');
INSERT INTO products (id, name, price_cents) VALUES
  (1, 'Notebook', 450),
  (2, 'Fountain pen', 2500),
  (3, 'Ink, blue', 900);
INSERT INTO orders (id, customer_id, product_id, quantity, placed_at) VALUES
  (1, 1, 1, 3, '2025-01-05'),
  (2, 1, 2, 1, '2025-01-05'),
  (3, 2, 3, 2, '2025-02-11'),
  (4, 3, 1, 10, '2025-03-20');
