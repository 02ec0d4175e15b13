// @vitest-environment jsdom
import { domEnvironmentSuite } from '../support/dom-suite.js'

domEnvironmentSuite()
