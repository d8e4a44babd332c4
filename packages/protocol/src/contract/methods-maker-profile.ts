import { declareMethod } from './declaration';
import { ref } from './json-schema';
import { boolean, object, optional, string } from './params';

/**
 * The maker's profile (docs/spec/design.md 18 "Choosing a panel", 19 "Cancel on disconnect"): an
 * absent field keeps its value, so a maker changes one setting without knowing the others.
 */
const QUOTER = { dialect: 'rfq', access: { kind: 'account', role: 'quoter' } } as const;
const TAKER = { dialect: 'rfq', access: { kind: 'account', role: 'taker' } } as const;

/** Printable ASCII only: a name shown to every taker must not carry control or look-alike characters. */
const NAME_PATTERN = /^[\x20-\x7e]{1,40}$/;

export const MAKER_PROFILE_METHODS = {
  'rfq.maker.set_profile': declareMethod({
    ...QUOTER,
    mode: 'write',
    summary: "Change the caller's maker profile (quoter role): directory listing, display name, cancel on disconnect; the whole profile",
    description:
      'An absent field keeps its value (defaults: unlisted, no name, cancel_on_disconnect false). With cancel_on_disconnect, the live competitive quotes of the maker end cancelled within 5 s once it has no open connection left; seed quotes stay firm.',
    params: object({
      listed: optional(boolean({ invalid: '{path} must be a boolean', description: 'In the makers directory (rfq.makers)' })),
      name: optional(
        string({
          pattern: NAME_PATTERN,
          maxLength: 40,
          invalid: '{path} must be a string',
          mismatch: '{path} must be 1 to 40 printable ASCII characters',
          description: 'The name takers see in the directory',
        }),
      ),
      cancel_on_disconnect: optional(
        boolean({ invalid: '{path} must be a boolean', description: 'End the live competitive quotes when the maker has no open connection left' }),
      ),
    }),
    result: {
      type: 'object',
      properties: {
        listed: { type: 'boolean' },
        name: { type: ['string', 'null'] },
        cancel_on_disconnect: { type: 'boolean' },
      },
      required: ['listed', 'name', 'cancel_on_disconnect'],
      additionalProperties: false,
    },
    errors: [],
  }),
  'rfq.makers': declareMethod({
    ...TAKER,
    mode: 'read',
    summary: 'The makers directory (taker role): every listed maker with its name and its last 7 days of competitive RFQs',
    description:
      'Listed makers only (rfq.maker.set_profile listed: true), ordered by wallet. The wallets are those a taker names in rfq.create competition.makers.',
    params: object({}),
    result: {
      type: 'object',
      properties: { makers: { type: 'array', items: ref('DirectoryMaker') } },
      required: ['makers'],
      additionalProperties: false,
    },
    errors: [],
  }),
  'rfq.maker.stats': declareMethod({
    ...QUOTER,
    mode: 'read',
    summary: "The caller's own last 7 days of competitive RFQs (quoter role), listed or not",
    params: object({}),
    result: ref('MakerStats'),
    errors: [],
  }),
};
