import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../index.js'

describe('createSandbox options', () => {
  it('names every bad option, settings first, in one TypeError', () => {
    expect(() => createSandbox({ tokenTtl: 0, baseUrl: 5 as never })).toThrow(
      new TypeError(
        'Invalid sandbox options: baseUrl: must be a string; tokenTtl: must be at least 1',
      ),
    )
    expect(() => createSandbox({ strict: 1 as never, auth: 'no' as never, dropRate: -1 })).toThrow(
      new TypeError(
        'Invalid sandbox options: dropRate: must be at least 0; strict: must be a boolean; auth: must be a boolean',
      ),
    )
    expect(() => createSandbox({ delay: { min: 5, max: 2 } })).toThrow(
      'Invalid sandbox options: delay.max: min must not exceed max',
    )
    expect(() => createSandbox({ delay: { min: 1, max: 2, jitter: 5 } as never })).toThrow(
      'Invalid sandbox options: delay.jitter: is not a known field',
    )
    expect(() => createSandbox({ journalSize: -1, sandboxesMemory: 5 })).toThrow(
      'Invalid sandbox options: journalSize: must be at least 0; sandboxesMemory: must be at least 1048576',
    )
    expect(() => createSandbox(null as never)).toThrow(
      'Invalid sandbox options: options: must be an object',
    )
    // A count's range is its resource's, wherever it was given; a bound zod checks twice is said once.
    expect(() => createSandbox({ counts: { users: -1 } })).toThrow(
      new TypeError(
        'Invalid sandbox options: counts.users: must be an integer from 2 to 1000000, got -1',
      ),
    )
    expect(() => createSandbox({ users: 1 })).toThrow(
      new TypeError('Invalid sandbox options: users: must be an integer from 2 to 1000000, got 1'),
    )
    // Only a missing api is the shop's: null is a mistake, named.
    expect(() => createSandbox({ api: null as never })).toThrow(
      'api: must be an API definition (defineApi({ … }))',
    )
    expect(() => createSandbox({ counts: { users: 10n as never } })).toThrow(
      'Invalid sandbox options: counts.users: must be a number',
    )
    expect(() => createSandbox({ seed: 2 ** 60 })).toThrow(
      new TypeError('Invalid sandbox options: seed: must be at most 9007199254740991'),
    )
  })

  it('a server option given to a sandbox, and a base URL that is no HTTP URL, are named as such', () => {
    expect(() => createSandbox({ port: 1 } as never)).toThrow(
      'Invalid sandbox options: port: is an option of the server (createSandboxServer, the CLI), not of a sandbox',
    )
    expect(() => createSandbox({ baseUrl: 'http://' })).toThrow(
      "Invalid sandbox options: baseUrl: is not a valid URL, got 'http://'",
    )
    expect(() => createSandbox({ baseUrl: 'ftp://files.example' })).toThrow(
      'Invalid sandbox options: baseUrl: must be an http:// or https:// URL',
    )
    expect(() => createSandbox({ porrt: 1 } as never)).toThrow(
      'porrt: is not an option; did you mean port?',
    )
  })

  it('a base path or an OpenAPI path that would hide the API or the control API is refused', () => {
    for (const [options, message] of [
      [{ baseUrl: '/__sandbox' }, 'baseUrl (--base-path): /__sandbox is inside the control API'],
      [
        { baseUrl: 'https://api.test/__sandbox/v1' },
        'baseUrl (--base-path): /__sandbox/v1 is inside',
      ],
      [{ openApiPath: '/users' }, 'openApiPath: /users is a route of the API'],
      [
        { baseUrl: '/api', openApiPath: '/api/users/{user_id}' },
        'openApiPath: /api/users/{user_id} is a route',
      ],
      [
        { openApiPath: '/__sandbox/openapi.json' },
        'openApiPath: /__sandbox/openapi.json is inside the control API',
      ],
    ] as const)
      expect(() => createSandbox(options)).toThrow(`Invalid sandbox options: ${message}`)
    expect(createSandbox({ baseUrl: '/api', openApiPath: '/users' }).options.openApiPath).toBe(
      '/users',
    )
  })

  it('a clock that gives no time is refused when the sandbox is made, not at the first write', async () => {
    for (const [given, shown] of [
      ['notanumber', '"notanumber"'],
      [Number.NaN, 'NaN'],
      [new Date('nope'), 'Invalid Date'],
      [undefined, 'undefined'],
      // Past a four-digit year: `+275760-09-13…`, a timestamp the sandbox itself refuses.
      [8.64e15, '8640000000000000'],
      [-1e15, '-1000000000000000'],
      [Date.parse('9999-12-31T23:59:59.999Z') + 1, '253402300800000'],
    ] as const)
      expect(() => createSandbox({ clock: () => given as never })).toThrow(
        `Invalid sandbox options: clock: must return a Date or milliseconds in years 0 to 9999; it returned ${shown}`,
      )
    expect(
      createSandbox({ clock: () => Date.parse('9999-12-31T23:59:59.999Z') }).options.now(),
    ).toBe(253402300799999)
    const fixed = createSandbox({ clock: () => new Date('2030-01-02T03:04:05.678Z') })
    const created = await fixed.fetch('http://localhost/users', {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-admin-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'clocked', email: 'clocked@example.com' }),
    })
    expect((await created.json()).data.createdAt).toBe('2030-01-02T03:04:05.678Z')
  })

  it('fills in defaults and takes settings as the config API does', () => {
    const defaults = createSandbox()
    expect(defaults.options).toMatchObject({ tokenTtl: 3600, control: true, maxSandboxes: 1000 })
    expect(defaults.options.openApiPath).toBe('/openapi.json')
    expect(defaults.config).toEqual({
      delay: 0,
      errorRate: 0,
      dropRate: 0,
      strict: false,
      auth: true,
    })
    const given = createSandbox({
      delay: '100-300',
      tokenTtl: 60,
      openApiPath: false,
      strict: true,
    })
    expect(given.config).toMatchObject({ delay: { min: 100, max: 300 }, strict: true })
    expect(given.options).toMatchObject({ tokenTtl: 60, openApiPath: null })
  })
})
