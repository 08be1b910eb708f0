/** What the preset tests share: the user rows they seed, and the presets the test server speaks. */
import { Model } from '../../src/index.js';
import { startTestServer, type TestServer } from '../server/index.js';

export interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

/** The built-in presets whose conventions the project's test server speaks (json-server's own is real). */
export type PresetName = 'django-rest' | 'rails' | 'laravel' | 'spring-data-rest' | 'json-api';

/** The test server speaking `preset`'s conventions, with `rows` as its users (name required). */
export function startUsers(preset: PresetName, rows: readonly UserData[]): Promise<TestServer<{ users: UserData[] }>> {
  return startTestServer({ conventions: preset, resources: { users: rows.map((user) => ({ ...user })) }, required: { users: ['name'] } });
}

/** The users the preset tests read and write (each test gives it a proxy: defineUser). */
export class PresetUser extends Model<UserData> {
  static override fields = [{ name: 'id', type: 'int' }, 'name', 'email', { name: 'age', type: 'int' }];
}

/** A User model talking to `url`/users with `preset`, without retries. */
export function defineUser(url: string, preset: PresetName): typeof PresetUser {
  class User extends PresetUser {
    static override proxy = { type: 'rest', url: `${url}/users`, preset, retry: 0 };
  }
  return User;
}
