/** The page types a page is classified into: data only, so contracts and views read them without the classifier. */
export const PAGE_TYPES = ['article', 'forum', 'product', 'collection', 'listing', 'documentation', 'service'] as const;
export type PageType = (typeof PAGE_TYPES)[number];
