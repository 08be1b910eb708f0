// Writes demo/db.json: about 300 realistic users, and a few posts each, for the demo's json-server.
// Deterministic (a seeded generator), so running it again gives the same file:
//   node demo/make-db.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const COUNT = 300;
const SEED = 20240607;

const FIRST = [
  'Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Sophia', 'Elijah', 'Ava', 'Lucas',
  'Mia', 'Mateo', 'Isabella', 'Leo', 'Charlotte', 'Hugo', 'Chloé', 'Louis', 'Zoë', 'Jonas',
  'Anna', 'Felix', 'Sofía', 'Diego', 'Lucía', 'Javier', 'Giulia', 'Marco', 'Chiara', 'Luca',
  'Aisha', 'Omar', 'Fatima', 'Youssef', 'Priya', 'Arjun', 'Ananya', 'Rohan', 'Mei', 'Wei',
  'Yuki', 'Haruto', 'Sakura', 'Min-jun', 'Seo-yeon', 'Amara', 'Kwame', 'Zainab', 'Tunde', 'Nia',
  'Ingrid', 'Lars', 'Astrid', 'Mikael', 'Łukasz', 'Zofia', 'Dmitri', 'Alina', 'Kai', 'Maya',
  'Ethan', 'Grace', 'Samuel', 'Hannah', 'Daniel', 'Ruth', 'Gabriel', 'Clara', 'Rafael', 'Elena',
];
const LAST = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Garcia', 'Martinez', 'Rodriguez', 'Lopez', 'Hernández', 'Gonzalez',
  'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Dubois', 'Lefèvre', 'Moreau', 'Laurent', 'Bernard',
  'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Silva', 'Santos', 'Oliveira', 'Costa', 'Pereira',
  'Kowalski', 'Nowak', 'Wiśniewska', 'Novák', 'Ivanova', 'Petrov', 'Andersson', 'Johansson', 'Nielsen', 'Hansen',
  'Okafor', 'Mensah', 'Adeyemi', 'Diallo', 'Haddad', 'Khan', 'Patel', 'Sharma', 'Gupta', 'Iyer',
  'Nguyen', 'Tran', 'Kim', 'Park', 'Lee', 'Chen', 'Wang', 'Li', 'Tanaka', 'Suzuki',
  "O'Brien", 'Murphy', 'Kelly', 'Walsh', 'Taylor', 'Clarke', 'Evans', 'Thomas', 'Roberts', 'Cohen',
];
const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];

/** mulberry32: a small seeded PRNG, so the file is the same on every run. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `Chloé O'Brien` -> `chloe.obrien` */
function emailName(text) {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ł/g, 'l').replace(/Ł/g, 'L').toLowerCase().replace(/[^a-z0-9-]/g, '');
}

export function makeUsers(count = COUNT, seed = SEED) {
  const random = generator(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const from = Date.UTC(2019, 0, 1);
  const to = Date.UTC(2025, 5, 30);
  const seen = new Set();
  const users = [];
  for (let id = 1; id <= count; id++) {
    const first = pick(FIRST);
    const last = pick(LAST);
    let local = `${emailName(first)}.${emailName(last)}`;
    for (let n = 2; seen.has(local); n++) local = `${emailName(first)}.${emailName(last)}${n}`;
    seen.add(local);
    const created = new Date(from + Math.floor(random() * (to - from) / 1000) * 1000);
    users.push({
      id,
      name: `${first} ${last}`,
      email: `${local}@${pick(DOMAINS)}`,
      age: 18 + Math.floor(random() * 63),
      active: random() < 0.78,
      created: created.toISOString(),
    });
  }
  return users;
}

const OPENING = ['Notes on', 'Thoughts about', 'A week of', 'Learning', 'Why I like', 'Getting started with', 'Lessons from', 'Ten tips for'];
const TOPIC = ['gardening', 'sourdough', 'trail running', 'chess', 'watercolours', 'TypeScript', 'the piano', 'cycling to work', 'bird watching', 'home brewing', 'photography', 'Rust', 'sailing', 'knitting'];

/** One to four posts per user (`userId`), ids in user order. */
export function makePosts(users, seed = SEED + 1) {
  const random = generator(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const posts = [];
  for (const user of users) {
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) posts.push({ id: posts.length + 1, userId: user.id, title: `${pick(OPENING)} ${pick(TOPIC)}` });
  }
  return posts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = fileURLToPath(new URL('./db.json', import.meta.url));
  const users = makeUsers();
  const posts = makePosts(users);
  writeFileSync(file, `${JSON.stringify({ users, posts }, null, 2)}\n`);
  console.log(`wrote ${users.length} users and ${posts.length} posts to ${file}`);
}
