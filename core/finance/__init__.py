"""Reading financial statements: line-item lexicon, fiscal periods, table rows and metric formulas.

Pure functions over text; nothing here touches an index, a model or the network.
"""
