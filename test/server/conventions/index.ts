// Convention name -> implementation.
import type { ConventionName } from '../types.js';
import type { Convention } from './context.js';
import { djangoRest } from './django-rest.js';
import { jsonApi } from './json-api.js';
import { laravel } from './laravel.js';
import { plain } from './plain.js';
import { rails } from './rails.js';
import { springDataRest } from './spring-data-rest.js';

export const CONVENTIONS: Record<ConventionName, Convention> = {
  plain,
  'django-rest': djangoRest,
  rails,
  laravel,
  'spring-data-rest': springDataRest,
  'json-api': jsonApi,
};
