/** What the preset tests share: the user rows they seed, and the presets the test server speaks. */

export interface UserData {
  id: number;
  name: string;
  email: string;
  age: number;
}

/** The built-in presets whose conventions the project's test server speaks (json-server's own is real). */
export type PresetName = 'django-rest' | 'rails' | 'laravel' | 'spring-data-rest' | 'json-api';
