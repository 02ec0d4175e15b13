import { describe, expect, it } from 'vitest'
import { checkCatalog } from '../../resources/catalog.js'
import { createSandbox, defineApi } from '../../index.js'
import { shopApi } from '../../shop/index.js'

describe("the shop's definitions", () => {
  // The shop's catalog is made without these checks at every start: this is where they run.
  it('pass every check a definition of yours gets', () => {
    expect(() => checkCatalog(shopApi)).not.toThrow()
  })

  it('an API made from the shop is checked as any other', () => {
    const broken = defineApi({ ...shopApi, accounts: { ...shopApi.accounts, password: '' } })
    expect(() => createSandbox({ api: broken })).toThrow(/api\.accounts\.password/)
  })
})
