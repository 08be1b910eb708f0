/**
 * The bench data set: N user records of about 127 bytes of JSON each
 * (id, name, email, age, active, created as an ISO date). Deterministic.
 */
const FIRST = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Frances', 'Dennis'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Allen', 'Ritchie'];

export const FIELD_NAMES = ['id', 'name', 'email', 'age', 'active', 'created'];

export function makeUsers(n) {
  let seed = 42;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  const base = Date.UTC(2020, 0, 1);
  const users = new Array(n);
  for (let i = 0; i < n; i++) {
    const first = FIRST[Math.floor(rand() * FIRST.length)];
    const last = LAST[Math.floor(rand() * LAST.length)];
    users[i] = {
      id: i + 1,
      name: `${first} ${last}`,
      email: `${last.toLowerCase()}${i + 1}@mail.com`,
      age: 18 + Math.floor(rand() * 60),
      active: rand() < 0.7,
      created: new Date(base + Math.floor(rand() * 1.5e11)).toISOString(),
    };
  }
  return users;
}
